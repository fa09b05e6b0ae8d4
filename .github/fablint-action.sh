#!/usr/bin/env bash
# The lint step of action.yml, kept as a script so that the test suite runs it as GitHub would:
# one lint, three renderings of its JSON (SARIF for code scanning, annotations on the diff, a
# Markdown summary for the run page), and the exit code handed to the last step.
set -uo pipefail
read -r -a paths <<< "${FABLINT_PATHS:-.}"
read -r -a args <<< "${FABLINT_ARGS:-}"
fablint lint "${paths[@]}" "${args[@]}" --format sarif --output fablint.sarif
code=$?
# annotations and the summary come from the same inputs; their exit codes repeat the first one
fablint lint "${paths[@]}" "${args[@]}" --format github 2>/dev/null
fablint lint "${paths[@]}" "${args[@]}" --format markdown \
  >> "${GITHUB_STEP_SUMMARY:-/dev/null}" 2>/dev/null
echo "exit-code=$code" >> "${GITHUB_OUTPUT:-/dev/null}"
exit 0
