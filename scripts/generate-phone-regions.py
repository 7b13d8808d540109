#!/usr/bin/env python3
"""Generate HearthChat's phone-region table from libphonenumber's metadata (the PyPI `phonenumbers` package).

Installs nothing itself. Run it in a throw-away virtual environment, from the repository root:

    python3 -m venv /tmp/pn && /tmp/pn/bin/pip install phonenumbers==9.0.43 \
        && /tmp/pn/bin/python scripts/generate-phone-regions.py > Sources/HearthChat/Phone/PhoneRegions+Table.swift

With --golden it writes instead the golden file the Swift tests compare the normaliser with: a few hundred
inputs in many regions' formats and what phonenumbers' own `parse` + `format_number(E164)` makes of them:

    /tmp/pn/bin/python scripts/generate-phone-regions.py --golden > Tests/HearthChatTests/phone-golden.json

The output is deterministic: the same phonenumbers version gives the same bytes. See docs/design.md, "Phone numbers".
"""

import json
import sys

import phonenumbers
from phonenumbers import PhoneMetadata, PhoneNumberFormat, PhoneNumberType
from phonenumbers.phonenumberutil import COUNTRY_CODE_TO_REGION_CODE, COUNTRY_CODES_FOR_NON_GEO_REGIONS, SUPPORTED_REGIONS

NON_GEOGRAPHIC = "001"

# Where the table deliberately differs from the metadata. Mexico dropped its mobile "1" after the country code and
# the national prefixes 01, 02, 044 and 045 in 2019, and libphonenumber's metadata dropped them too, so phonenumbers
# now reads "+52 1 55 1234 5678" as an 11-digit number. Address books still hold those forms: parsing strips them
# (only where the rest is a viable Mexican number, like every national prefix), as libphonenumber did before.
OVERRIDES = {
    "MX": {"national_prefix_for_parsing": "0(?:[12]|4[45])|1"},
}

# Every character the Swift pattern compiler (DigitPattern) understands.
PATTERN_ALPHABET = set("0123456789[]-()?:|{},\\d$")

TYPE_DESCS = [
    "fixed_line", "mobile", "toll_free", "premium_rate", "shared_cost", "personal_number", "voip", "pager", "uan",
    "voicemail",
]


def check_pattern(region, name, pattern):
    if pattern is None:
        return
    unknown = set(pattern) - PATTERN_ALPHABET
    if unknown:
        sys.exit(f"error: {region} {name} '{pattern}' uses {sorted(unknown)}, which DigitPattern does not read")


def java_transform(rule):
    """phonenumbers spells group references \\1 (Python); the table uses libphonenumber's own $1."""
    if rule is None:
        return None
    out = rule.replace("\\", "$")
    if "\\" in out or any(c not in "0123456789$" for c in out):
        sys.exit(f"error: unexpected transform rule '{rule}'")
    return out


def metadata_rows():
    rows = []
    for region in sorted(SUPPORTED_REGIONS):
        rows.append((region, PhoneMetadata.metadata_for_region(region)))
    for code in sorted(COUNTRY_CODES_FOR_NON_GEO_REGIONS):
        rows.append((NON_GEOGRAPHIC, PhoneMetadata.metadata_for_nongeo_region(code)))
    return rows


def main_region(code):
    return COUNTRY_CODE_TO_REGION_CODE[code][0]


def types_pattern(metadata):
    """The union of the region's number-type patterns, used to tell apart regions that share a calling code."""
    parts = []
    for name in TYPE_DESCS:
        desc = getattr(metadata, name)
        if desc is not None and desc.national_number_pattern:
            parts.append(desc.national_number_pattern)
    return "|".join(f"(?:{p})" for p in parts) if parts else None


def may_start_with_zero(metadata):
    """Whether the region's national significant numbers may begin with 0 (Italy's do), seen in its examples."""
    for name in TYPE_DESCS:
        desc = getattr(metadata, name)
        if desc is not None and desc.example_number and desc.example_number.startswith("0"):
            return True
    return False


def region_fields(region, metadata):
    override = OVERRIDES.get(region, {})
    code = metadata.country_code
    is_main = region == NON_GEOGRAPHIC or main_region(code) == region
    general = metadata.general_desc
    needs_types = not is_main and metadata.leading_digits is None
    fields = {
        "code": region,
        "callingCode": code,
        "internationalPrefix": metadata.international_prefix,
        "preferredInternationalPrefix": metadata.preferred_international_prefix,
        "nationalPrefix": metadata.national_prefix,
        "nationalPrefixForParsing": override.get("national_prefix_for_parsing", metadata.national_prefix_for_parsing),
        "nationalPrefixTransformRule": java_transform(metadata.national_prefix_transform_rule),
        "leadingDigits": metadata.leading_digits,
        "nationalNumberPattern": general.national_number_pattern,
        "possibleLengths": list(general.possible_length),
        "localOnlyLengths": list(general.possible_length_local_only),
        "numberTypesPattern": types_pattern(metadata) if needs_types else None,
        "mayStartWithZero": may_start_with_zero(metadata),
        "isMainRegion": is_main,
    }
    for name in ["internationalPrefix", "nationalPrefixForParsing", "leadingDigits", "nationalNumberPattern",
                 "numberTypesPattern"]:
        check_pattern(region, name, fields[name])
    return fields


def swift_literal(value):
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if '"' in value:
        sys.exit(f"error: unexpected quote in '{value}'")
    return f'#"{value}"#' if "\\" in value else f'"{value}"'


# The initializer's labels, in order; arguments equal to the default are left out to keep rows short.
DEFAULTS = {
    "internationalPrefix": None, "preferredInternationalPrefix": None, "nationalPrefix": None,
    "nationalPrefixForParsing": None, "nationalPrefixTransformRule": None, "leadingDigits": None,
    "localOnlyLengths": [], "numberTypesPattern": None, "mayStartWithZero": False, "isMainRegion": True,
}
ORDER = [
    "callingCode", "internationalPrefix", "preferredInternationalPrefix", "nationalPrefix", "nationalPrefixForParsing",
    "nationalPrefixTransformRule", "leadingDigits", "nationalNumberPattern", "possibleLengths", "localOnlyLengths",
    "numberTypesPattern", "mayStartWithZero", "isMainRegion",
]


def swift_row(fields):
    arguments = [swift_literal(fields["code"])]
    for name in ORDER:
        if name in DEFAULTS and fields[name] == DEFAULTS[name]:
            continue
        arguments.append(f"{name}: {swift_literal(fields[name])}")
    one_line = "        PhoneRegion(" + ", ".join(arguments) + "),"
    if len(one_line) < 120:
        return one_line
    lines = ["        PhoneRegion("]
    for index, argument in enumerate(arguments):
        comma = "," if index < len(arguments) - 1 else ""
        line = "            " + argument + comma
        if len(line) > 120:
            line = long_pattern_argument(argument, comma)
        lines.append(line)
    lines.append("        ),")
    return "\n".join(lines)


def long_pattern_argument(argument, comma):
    """A pattern too long for one line, as a raw multi-line string whose lines `\\#` joins without a break."""
    name, literal = argument.split(": ", 1)
    if not literal.startswith('#"'):
        literal = '#' + literal + '#'
    pattern = literal[2:-2]
    width = 100
    chunks = []
    while pattern:
        cut = min(width, len(pattern))
        while cut < len(pattern) and pattern[cut - 1] == "\\":
            cut -= 1
        chunks.append(pattern[:cut])
        pattern = pattern[cut:]
    body = "\\#\n".join("                " + chunk for chunk in chunks)
    return f'            {name}: #"""\n{body}\n                """#{comma}'


def write_table(out):
    rows = [region_fields(region, metadata) for region, metadata in metadata_rows()]
    overrides = "; ".join(f"{region} {', '.join(f'{k} {v!r}' for k, v in o.items())}" for region, o in OVERRIDES.items())
    out.write(f"""// Generated by scripts/generate-phone-regions.py from phonenumbers {phonenumbers.__version__} (libphonenumber's
// metadata): {len(rows)} rows, {len(SUPPORTED_REGIONS)} regions and {len(COUNTRY_CODES_FOR_NON_GEO_REGIONS)} non-geographic calling codes ("001").
// Do not edit by hand: regenerate it (docs/design.md, "Phone numbers").
// Deliberate differences from the metadata: {overrides}.

extension PhoneRegion {{
    /// Every region of libphonenumber's metadata, sorted by region code, then the non-geographic entities.
    static let all: [PhoneRegion] = [
""")
    for fields in rows:
        out.write(swift_row(fields) + "\n")
    out.write("    ]\n}\n")


# ---- golden file ----------------------------------------------------------------------------------------------------

GOLDEN_REGIONS = [
    "US", "CA", "GB", "DE", "FR", "IT", "AR", "MX", "BR", "IN", "RU", "JP", "AU", "CN", "ES", "NL", "BE", "CH", "AT",
    "SE", "NO", "DK", "FI", "PL", "PT", "IE", "GR", "TR", "IL", "AE", "SA", "EG", "ZA", "NG", "KE", "KR", "SG", "HK",
    "TW", "TH", "VN", "ID", "PH", "MY", "NZ", "CL", "CO", "PE", "UA", "KZ", "BY", "SM", "VA", "GG", "CI", "GA", "HU",
    "CZ", "PK", "BD", "JM",
]
DIAL_FROM = ["US", "GB", "DE", "RU", "AU", "JP", "BR", "AR", "FR", "CN"]

HAND_CASES = [
    # The quirks.
    ("+44 (0)20 7946 0958", "US"), ("+44 (0) 20 7946 0958", "DE"), ("0044 (0)20 7946 0958", "FR"),
    ("+39 06 1234 5678", "US"), ("06 1234 5678", "IT"), ("0039 06 1234 5678", "DE"), ("+39 333 123 4567", "IT"),
    ("011 15-1234-5678", "AR"), ("+54 9 11 1234-5678", "US"), ("11 15 1234 5678", "AR"), ("0351 15 123 4567", "AR"),
    ("+54 11 1234-5678", "AR"), ("011 1234-5678", "AR"),
    ("+52 1 55 1234 5678", "US"), ("55 1234 5678", "MX"), ("+52 55 1234 5678", "MX"), ("044 55 1234 5678", "MX"),
    ("045 55 1234 5678", "MX"), ("01 55 1234 5678", "MX"), ("00 52 1 55 1234 5678", "MX"),
    # Trunk and international prefixes.
    ("1 (201) 555-0123", "US"), ("(201) 555-0123", "US"), ("201.555.0123", "US"), ("011 44 20 7946 0958", "US"),
    ("+1 416 555 0123", "CA"), ("1-416-555-0123", "CA"), ("011 33 1 23 45 67 89", "CA"),
    ("8 912 345-67-89", "RU"), ("8 (495) 123-45-67", "RU"), ("8~10 49 30 123456", "RU"), ("810 49 30 123456", "RU"),
    ("8 10 44 20 7946 0958", "RU"), ("+7 912 345 67 89", "KZ"), ("8 701 123 4567", "KZ"),
    ("030 123456", "DE"), ("0049 30 123456", "DE"), ("+49 (0)30 123456", "US"), ("0170 1234567", "DE"),
    ("01 23 45 67 89", "FR"), ("06 12 34 56 78", "FR"), ("+33 (0)6 12 34 56 78", "GB"),
    ("0011 44 20 7946 0958", "AU"), ("0412 345 678", "AU"), ("(02) 9876 5432", "AU"),
    ("010 1234 5678", "CN"), ("138 0013 8000", "CN"), ("00 86 10 1234 5678", "CN"),
    ("090-1234-5678", "JP"), ("03-1234-5678", "JP"), ("010 44 20 7946 0958", "JP"),
    ("(11) 91234-5678", "BR"), ("0 21 11 91234-5678", "BR"), ("0021 44 20 7946 0958", "BR"),
    ("098765 43210", "IN"), ("+91 98765 43210", "IN"), ("0 98765 43210", "IN"),
    ("0549 123456", "SM"), ("123456", "SM"), ("06 698 12345", "VA"),
    ("07781 123456", "GG"), ("+44 1481 256789", "GB"), ("01 23 45 67 89", "CI"), ("01 23 45 67", "GA"),
    ("+800 1234 5678", "US"), ("+882 3456 7890", "DE"), ("00 800 1234 5678", "GB"),
    # Separators, brackets, extensions, tel: URIs, Unicode digits.
    ("+1/201/555/0123", "US"), ("[201] 555 0123", "US"), ("+1 201 555 0123 ext. 12", "US"),
    ("(201) 555-0123 x12", "US"), ("201-555-0123 ext 345", "US"), ("201 555 0123 #7", "US"),
    ("tel:+1-201-555-0123", "US"), ("tel:+44-20-7946-0958;ext=12", "US"), ("TEL:+49-30-123456", "GB"),
    ("tel:863-1234;phone-context=+1-914-555", "US"), ("\uff10\uff13\uff0d\uff11\uff12\uff13\uff14\uff0d\uff15\uff16\uff17\uff18", "JP"),
    ("\u0660\u0665\u0660 \u0661\u0662\u0663 \u0664\u0665\u0666\u0667", "AE"), ("+\u200b44 20 7946 0958", "US"),
    ("\u00a0+44\u00a020\u00a07946\u00a00958\u00a0", "US"), ("\uff0b44 20 7946 0958", "US"),
    # Garbage and bounds.
    ("", "US"), ("   ", "US"), ("+", "US"), ("++", "US"), ("abc", "US"), ("+1", "US"), ("123", "US"), ("12", "US"),
    ("1234", "US"), ("+44 12", "US"), ("+999 123 4567", "US"), ("+0 123 456 789", "US"), ("00 999 1234", "DE"),
    ("1-800-FLOWERS", "US"), ("Phone: 020 7946 0958", "GB"), ("call me", "US"), ("+1 201 555 0123 or so", "US"),
    ("+1 201 555 0123 456 789 012", "US"), ("+49 30 1234567890123456", "DE"), ("201-555-0123", "ZZ"),
    ("+44 20 7946 0958", "ZZ"), ("201-555-0123", "001"), ("+1 (201) 555-01-23-45", "US"),
]

# What the normaliser deliberately answers instead of phonenumbers, with why (docs/design.md, "Phone numbers").
DEVIATIONS = {
    ("+52 1 55 1234 5678", "US"): ("+525512345678", "Mexico's legacy mobile 1 after the country code is dropped"),
    ("00 52 1 55 1234 5678", "MX"): ("+525512345678", "Mexico's legacy mobile 1 after the country code is dropped"),
    ("044 55 1234 5678", "MX"): ("+525512345678", "Mexico's abolished national mobile prefix 044 is dropped"),
    ("045 55 1234 5678", "MX"): ("+525512345678", "Mexico's abolished national mobile prefix 045 is dropped"),
    ("01 55 1234 5678", "MX"): ("+525512345678", "Mexico's abolished national prefix 01 is dropped"),
    ("1-800-FLOWERS", "US"): (None, "letters are refused: no vanity numbers"),
    ("Phone: 020 7946 0958", "GB"): (None, "text before the number is refused (only a tel: URI is read)"),
    ("+1 201 555 0123 or so", "US"): (None, "text after the number is refused"),
}


def phonenumbers_e164(text, region):
    try:
        number = phonenumbers.parse(text, region)
    except phonenumbers.NumberParseException:
        return None
    return phonenumbers.format_number(number, PhoneNumberFormat.E164)


def automatic_deviation(expected):
    """The normaliser's own bounds, stricter than phonenumbers': at least 4 national digits, at most 15 in all."""
    if expected is None:
        return None
    number = phonenumbers.parse(expected, None)
    national = phonenumbers.national_significant_number(number)
    if len(national) < 4:
        return (None, "fewer than 4 national digits")
    if len(expected) - 1 > 15:
        return (None, "more than 15 digits (E.164's limit)")
    return None


def generated_cases():
    """Each region's example fixed-line and mobile numbers, written as people write them and as dialled from
    abroad (three origins per region, in turn, so every international prefix of DIAL_FROM is used)."""
    cases = []
    for index, region in enumerate(GOLDEN_REGIONS):
        fixed = phonenumbers.example_number_for_type(region, PhoneNumberType.FIXED_LINE)
        if fixed is not None:
            national = phonenumbers.format_number(fixed, PhoneNumberFormat.NATIONAL)
            cases.append((national, region))
            cases.append(("".join(c for c in national if c.isdigit()), region))
            cases.append((phonenumbers.format_number(fixed, PhoneNumberFormat.INTERNATIONAL), "US"))
        mobile = phonenumbers.example_number_for_type(region, PhoneNumberType.MOBILE)
        if mobile is not None:
            national = phonenumbers.format_number(mobile, PhoneNumberFormat.NATIONAL)
            international = phonenumbers.format_number(mobile, PhoneNumberFormat.INTERNATIONAL)
            cases.append((national.replace(" ", "-"), region))
            cases.append((international.replace(" ", "."), "GB"))
            cases.append((phonenumbers.format_number(mobile, PhoneNumberFormat.RFC3966), "DE"))
            for turn in range(3):
                origin = DIAL_FROM[(3 * index + turn) % len(DIAL_FROM)]
                if origin != region:
                    cases.append((phonenumbers.format_out_of_country_calling_number(mobile, origin), origin))
    return cases


def write_golden(out):
    seen = set()
    rows = []
    for text, region in HAND_CASES + generated_cases():
        if (text, region) in seen:
            continue
        seen.add((text, region))
        expected = phonenumbers_e164(text, region)
        row = {"input": text, "region": region, "phonenumbers": expected}
        deviation = DEVIATIONS.get((text, region)) or automatic_deviation(expected)
        if deviation is not None:
            row["ours"], row["why"] = deviation
        rows.append(row)
    document = {
        "generator": "scripts/generate-phone-regions.py --golden",
        "phonenumbers": phonenumbers.__version__,
        "note": "phonenumbers is parse + format_number(E164), null when it refuses; ours/why: a deliberate difference",
        "cases": rows,
    }
    out.write(json.dumps(document, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] == ["--golden"]:
        write_golden(sys.stdout)
    elif sys.argv[1:] == []:
        write_table(sys.stdout)
    else:
        sys.exit("usage: generate-phone-regions.py [--golden]")
