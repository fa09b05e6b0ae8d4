#!/usr/bin/env bash
# The lint step of action.yml, kept as a script so that the test suite runs it as GitHub would:
# one lint, three renderings of its findings (annotations on the diff to stdout, SARIF for code
# scanning, a Markdown summary for the run page), and the exit code handed to the last step.
set -uo pipefail
read -r -a paths <<< "${FABLINT_PATHS:-.}"
read -r -a args <<< "${FABLINT_ARGS:-}"
summary=$(mktemp)
fablint lint "${paths[@]}" "${args[@]}" --format github \
  --also sarif:fablint.sarif --also "markdown:$summary"
code=$?
cat "$summary" >> "${GITHUB_STEP_SUMMARY:-/dev/null}" 2>/dev/null
rm -f "$summary"
echo "exit-code=$code" >> "${GITHUB_OUTPUT:-/dev/null}"
exit 0
