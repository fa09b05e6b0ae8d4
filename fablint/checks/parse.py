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


@register
class PartialRead(Rule):
    """An input was read only in part.

    ## What it checks
    How much of each file its parser understood, judged per format:

    - **Running-configs** (EOS, NX-OS) leave many lines unmodelled on purpose (AAA, routing,
      logging), so those do not count. What counts is a line that is not configuration at all
      (it starts with no keyword: a pasted LLDP table, JSON, YAML), and an export cut short:
      EOS ends every `show running-config` with `end`, so a file that begins with its
      `! Command: show running-config` header and stops before `end`, or that goes on after
      it, says so; NX-OS writes no end marker, so only a cut inside a line shows.
    - **Tables and dumps** (LLDP, InfiniBand, OpenSM, `mlnx_qos`): every line is meant to be
      read, so a share of lines not understood of 10 % or more (25 % for `mlnx_qos`, and at
      least 3 lines) is reported with the count, the share and the first such line.
    - **SONiC JSON** is read whole or not at all: a cut document is not valid JSON (FAB001).

    The finding names the count, the share and the first line; `fablint parse FILE` shows the
    same problems and the parser's `unknown_lines` and `first_unknown`.

    ## Why it matters
    A linter that read 78 % of a fabric and says "no problems" is worse than one that refuses:
    the devices, ports or cables in the part not read are simply missing from every rule.

    ## How to fix
    Re-export the file whole (the command's complete output, `end` included), remove what was
    pasted into it, or, for an output variant fablint does not read yet, report it with a
    sample.
    """

    id = "FAB005"
    name = "partial-read"
    title = "Input read only in part"
    severity = Severity.WARNING
    category = "parse"
    vendors = ("any",)
