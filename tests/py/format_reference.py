"""The independent reference for the internationalized formats in the format differential
(mcp-runtime/tests/it/formats.rs): `idn-hostname` by the `idna` package (IDNA 2008, RFC 5891
and RFC 5892, with its own tables; what Python's jsonschema uses for this format), `idn-email` by
the `email-validator` package (RFC 6531 addresses, SMTPUTF8 allowed, quoted local parts and
address literals allowed, no DNS lookups, special-use domain names not refused).

Reads a JSON array of [format, string] pairs on stdin; writes a JSON array of verdicts."""

import json
import sys

import email_validator
import idna

email_validator.SPECIAL_USE_DOMAIN_NAMES = []


def idn_hostname(s):
    try:
        idna.encode(s)
        return True
    except (idna.IDNAError, UnicodeError, ValueError):
        return False


def idn_email(s):
    try:
        email_validator.validate_email(
            s,
            check_deliverability=False,
            allow_smtputf8=True,
            allow_quoted_local=True,
            allow_domain_literal=True,
            globally_deliverable=False,
        )
        return True
    except email_validator.EmailNotValidError:
        return False


CHECKS = {"idn-hostname": idn_hostname, "idn-email": idn_email}

cases = json.load(sys.stdin)
json.dump([CHECKS[f](s) for f, s in cases], sys.stdout)
