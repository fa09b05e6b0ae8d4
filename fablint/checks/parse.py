"""Findings about the inputs themselves. The engine raises these; they have no check()."""

from __future__ import annotations

from fablint.checks.base import Rule, register
from fablint.findings import Severity


@register
class ParseErrorRule(Rule):
    """A file could not be read or parsed.

    ## What it checks
    Every input must be readable and parse as the format it was detected (or forced with
    `--vendor`) to be: no binary content, valid text encoding, no structural damage such as a
    truncated JSON document.

    ## Why it matters
    A file that cannot be parsed is a device that is not linted. fablint reports it, lints
    everything else, and exits with code 2 so that a CI gate does not pass on a partial run.

    ## How to fix
    Open the file at the reported line. Re-export the configuration from the device
    (`show running-config`) if it was damaged in transit, or exclude the file in `fablint.yaml`
    if it is not a device configuration.
    """

    id = "FAB001"
    name = "parse-error"
    title = "Input could not be read or parsed"
    severity = Severity.ERROR
    category = "parse"
    vendors = ("any",)


@register
class UnsupportedInput(Rule):
    """A file is not in any format fablint reads.

    ## What it checks
    Each file is recognised by its content, anywhere in the file (the formats are listed in the
    README). A file that matches none is reported. Files found in folders are reported
    together, as one warning that names each file with the reason (all of them in the JSON
    report's `objects`); a file named on the command line that cannot be linted is an error
    and makes fablint exit with code 2. FIFOs, sockets, devices and symbolic link loops are
    never opened: they are reported the same way.

    A folder walk skips, without a word, what is obviously not an input: hidden folders
    (`.git`), paths a `.gitignore` excludes, Ansible variables (`group_vars`, `host_vars`),
    playbooks and inventories (by content), documents, code, templates (`.j2`), INI files,
    `ansible.cfg`, `requirements.txt`.

    ## Why it matters
    A configuration fablint silently skipped would look like a clean device. Naming every
    skipped file keeps the result honest.

    ## How to fix
    Force the format with `--vendor` if detection guessed wrong, or list the file under
    `exclude` in `fablint.yaml` if it is not meant to be linted.
    """

    id = "FAB002"
    name = "unsupported-input"
    title = "Input is not a supported format"
    severity = Severity.WARNING
    category = "parse"
    vendors = ("any",)


@register
class InvalidValue(Rule):
    """A recognised configuration line has a value fablint cannot use.

    ## What it checks
    Lines that fablint models (MTU, speed, PFC priorities, thresholds, maps …) must carry
    values within the range the vendor accepts, for example an MTU between 68 and 65535 or a
    PFC priority between 0 and 7.

    ## Why it matters
    The device would reject such a line, so the configuration in the repository is not what
    runs on the switch; and fablint cannot judge a setting it cannot read.

    ## How to fix
    Correct the value on the reported line.
    """

    id = "FAB003"
    name = "invalid-value"
    title = "Configuration value out of range or not understood"
    severity = Severity.WARNING
    category = "parse"
    vendors = ("any",)


@register
class UnusedSuppression(Rule):
    """An inline `fablint: disable` comment suppresses nothing.

    ## What it checks
    Every `! fablint: disable=RULE` and `! fablint: disable-file=RULE` comment must suppress at
    least one finding; a comment that names an unknown rule is reported too.

    ## Why it matters
    Suppressions outlive the problems they hid. A stale one hides the next, real finding on
    the same line without anyone noticing.

    ## How to fix
    Delete the comment, or correct the rule id in it.
    """

    id = "FAB004"
    name = "unused-suppression"
    title = "Inline suppression that suppresses nothing"
    severity = Severity.WARNING
    category = "parse"
    vendors = ("eos",)
