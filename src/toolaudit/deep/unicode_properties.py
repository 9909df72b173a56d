"""ECMA-262's Unicode property escapes (``\\p{...}``), as RE2 can write them.

ECMA-262 names a general category long or short (``Letter``, ``L``), and a script by
its long name or its ISO 15924 code (``Script=Greek``, ``sc=Grek``); RE2 knows
categories by their short names and scripts by their long names, bare. These tables
are that translation, as data: Python's ``unicodedata`` has no scripts to derive them
from. They hold only what RE2 can match exactly (every entry is compiled by a test);
a name not here is refused by :mod:`toolaudit.deep.patterns`, never guessed at.

Sources: ECMA-262's tables of General_Category and Script values (which are
Unicode's PropertyValueAliases.txt), and the groups of RE2's ``unicode_groups.cc``.
"""

from __future__ import annotations

from typing import NamedTuple


class Rewrite(NamedTuple):
    """A property as RE2 class items (``\\p{Lu}``, ``0-9``), with whether it is their complement."""

    items: tuple[str, ...]
    complemented: bool = False


def _groups(*names: str) -> tuple[str, ...]:
    return tuple(f"\\p{{{name}}}" for name in names)


# What every assigned code point is in: one of these, exactly (Cn is unassigned).
_ASSIGNED = _groups("L", "M", "N", "P", "S", "Z", "Cc", "Cf", "Cs", "Co")

#: ECMA-262's General_Category values: each long name and alias -> its short name.
GENERAL_CATEGORY_ALIASES: dict[str, str] = {
    "Cased_Letter": "LC",
    "Close_Punctuation": "Pe",
    "Connector_Punctuation": "Pc",
    "Control": "Cc",
    "cntrl": "Cc",
    "Currency_Symbol": "Sc",
    "Dash_Punctuation": "Pd",
    "Decimal_Number": "Nd",
    "digit": "Nd",
    "Enclosing_Mark": "Me",
    "Final_Punctuation": "Pf",
    "Format": "Cf",
    "Initial_Punctuation": "Pi",
    "Letter": "L",
    "Letter_Number": "Nl",
    "Line_Separator": "Zl",
    "Lowercase_Letter": "Ll",
    "Mark": "M",
    "Combining_Mark": "M",
    "Math_Symbol": "Sm",
    "Modifier_Letter": "Lm",
    "Modifier_Symbol": "Sk",
    "Nonspacing_Mark": "Mn",
    "Number": "N",
    "Open_Punctuation": "Ps",
    "Other": "C",
    "Other_Letter": "Lo",
    "Other_Number": "No",
    "Other_Punctuation": "Po",
    "Other_Symbol": "So",
    "Paragraph_Separator": "Zp",
    "Private_Use": "Co",
    "Punctuation": "P",
    "punct": "P",
    "Separator": "Z",
    "Space_Separator": "Zs",
    "Spacing_Mark": "Mc",
    "Surrogate": "Cs",
    "Symbol": "S",
    "Titlecase_Letter": "Lt",
    "Unassigned": "Cn",
    "Uppercase_Letter": "Lu",
}

#: Short names whose RE2 group is not ECMA-262's set, or which RE2 lacks, written
#: exactly with the groups it has. RE2's ``C`` leaves out the unassigned code points.
_CATEGORY_REWRITES = {
    "LC": Rewrite(_groups("Lu", "Ll", "Lt")),
    "Cn": Rewrite(_ASSIGNED, complemented=True),
    "C": Rewrite(_groups("L", "M", "N", "P", "S", "Z"), complemented=True),
}


def _category(short: str) -> Rewrite:
    return _CATEGORY_REWRITES.get(short) or Rewrite(_groups(short))


#: Every General_Category name and alias ECMA-262 accepts -> its RE2 form.
GENERAL_CATEGORIES: dict[str, Rewrite] = {
    **{short: _category(short) for short in GENERAL_CATEGORY_ALIASES.values()},
    **{name: _category(short) for name, short in GENERAL_CATEGORY_ALIASES.items()},
}

#: The scripts RE2 knows (their long names, as ECMA-262's canonical values) -> their
#: other names in ECMA-262: the ISO 15924 code, when it is not the long name itself.
#: Scripts newer than RE2's Unicode data (Garay, Todhri...) are not here: refused.
SCRIPT_ALIASES: dict[str, tuple[str, ...]] = {
    "Adlam": ("Adlm",),
    "Ahom": (),
    "Anatolian_Hieroglyphs": ("Hluw",),
    "Arabic": ("Arab",),
    "Armenian": ("Armn",),
    "Avestan": ("Avst",),
    "Balinese": ("Bali",),
    "Bamum": ("Bamu",),
    "Bassa_Vah": ("Bass",),
    "Batak": ("Batk",),
    "Bengali": ("Beng",),
    "Bhaiksuki": ("Bhks",),
    "Bopomofo": ("Bopo",),
    "Brahmi": ("Brah",),
    "Braille": ("Brai",),
    "Buginese": ("Bugi",),
    "Buhid": ("Buhd",),
    "Canadian_Aboriginal": ("Cans",),
    "Carian": ("Cari",),
    "Caucasian_Albanian": ("Aghb",),
    "Chakma": ("Cakm",),
    "Cham": (),
    "Cherokee": ("Cher",),
    "Chorasmian": ("Chrs",),
    "Common": ("Zyyy",),
    "Coptic": ("Copt", "Qaac"),
    "Cuneiform": ("Xsux",),
    "Cypriot": ("Cprt",),
    "Cypro_Minoan": ("Cpmn",),
    "Cyrillic": ("Cyrl",),
    "Deseret": ("Dsrt",),
    "Devanagari": ("Deva",),
    "Dives_Akuru": ("Diak",),
    "Dogra": ("Dogr",),
    "Duployan": ("Dupl",),
    "Egyptian_Hieroglyphs": ("Egyp",),
    "Elbasan": ("Elba",),
    "Elymaic": ("Elym",),
    "Ethiopic": ("Ethi",),
    "Georgian": ("Geor",),
    "Glagolitic": ("Glag",),
    "Gothic": ("Goth",),
    "Grantha": ("Gran",),
    "Greek": ("Grek",),
    "Gujarati": ("Gujr",),
    "Gunjala_Gondi": ("Gong",),
    "Gurmukhi": ("Guru",),
    "Han": ("Hani",),
    "Hangul": ("Hang",),
    "Hanifi_Rohingya": ("Rohg",),
    "Hanunoo": ("Hano",),
    "Hatran": ("Hatr",),
    "Hebrew": ("Hebr",),
    "Hiragana": ("Hira",),
    "Imperial_Aramaic": ("Armi",),
    "Inherited": ("Zinh", "Qaai"),
    "Inscriptional_Pahlavi": ("Phli",),
    "Inscriptional_Parthian": ("Prti",),
    "Javanese": ("Java",),
    "Kaithi": ("Kthi",),
    "Kannada": ("Knda",),
    "Katakana": ("Kana",),
    "Kawi": (),
    "Kayah_Li": ("Kali",),
    "Kharoshthi": ("Khar",),
    "Khitan_Small_Script": ("Kits",),
    "Khmer": ("Khmr",),
    "Khojki": ("Khoj",),
    "Khudawadi": ("Sind",),
    "Lao": ("Laoo",),
    "Latin": ("Latn",),
    "Lepcha": ("Lepc",),
    "Limbu": ("Limb",),
    "Linear_A": ("Lina",),
    "Linear_B": ("Linb",),
    "Lisu": (),
    "Lycian": ("Lyci",),
    "Lydian": ("Lydi",),
    "Mahajani": ("Mahj",),
    "Makasar": ("Maka",),
    "Malayalam": ("Mlym",),
    "Mandaic": ("Mand",),
    "Manichaean": ("Mani",),
    "Marchen": ("Marc",),
    "Masaram_Gondi": ("Gonm",),
    "Medefaidrin": ("Medf",),
    "Meetei_Mayek": ("Mtei",),
    "Mende_Kikakui": ("Mend",),
    "Meroitic_Cursive": ("Merc",),
    "Meroitic_Hieroglyphs": ("Mero",),
    "Miao": ("Plrd",),
    "Modi": (),
    "Mongolian": ("Mong",),
    "Mro": ("Mroo",),
    "Multani": ("Mult",),
    "Myanmar": ("Mymr",),
    "Nabataean": ("Nbat",),
    "Nag_Mundari": ("Nagm",),
    "Nandinagari": ("Nand",),
    "New_Tai_Lue": ("Talu",),
    "Newa": (),
    "Nko": ("Nkoo",),
    "Nushu": ("Nshu",),
    "Nyiakeng_Puachue_Hmong": ("Hmnp",),
    "Ogham": ("Ogam",),
    "Ol_Chiki": ("Olck",),
    "Old_Hungarian": ("Hung",),
    "Old_Italic": ("Ital",),
    "Old_North_Arabian": ("Narb",),
    "Old_Permic": ("Perm",),
    "Old_Persian": ("Xpeo",),
    "Old_Sogdian": ("Sogo",),
    "Old_South_Arabian": ("Sarb",),
    "Old_Turkic": ("Orkh",),
    "Old_Uyghur": ("Ougr",),
    "Oriya": ("Orya",),
    "Osage": ("Osge",),
    "Osmanya": ("Osma",),
    "Pahawh_Hmong": ("Hmng",),
    "Palmyrene": ("Palm",),
    "Pau_Cin_Hau": ("Pauc",),
    "Phags_Pa": ("Phag",),
    "Phoenician": ("Phnx",),
    "Psalter_Pahlavi": ("Phlp",),
    "Rejang": ("Rjng",),
    "Runic": ("Runr",),
    "Samaritan": ("Samr",),
    "Saurashtra": ("Saur",),
    "Sharada": ("Shrd",),
    "Shavian": ("Shaw",),
    "Siddham": ("Sidd",),
    "SignWriting": ("Sgnw",),
    "Sinhala": ("Sinh",),
    "Sogdian": ("Sogd",),
    "Sora_Sompeng": ("Sora",),
    "Soyombo": ("Soyo",),
    "Sundanese": ("Sund",),
    "Syloti_Nagri": ("Sylo",),
    "Syriac": ("Syrc",),
    "Tagalog": ("Tglg",),
    "Tagbanwa": ("Tagb",),
    "Tai_Le": ("Tale",),
    "Tai_Tham": ("Lana",),
    "Tai_Viet": ("Tavt",),
    "Takri": ("Takr",),
    "Tamil": ("Taml",),
    "Tangsa": ("Tnsa",),
    "Tangut": ("Tang",),
    "Telugu": ("Telu",),
    "Thaana": ("Thaa",),
    "Thai": (),
    "Tibetan": ("Tibt",),
    "Tifinagh": ("Tfng",),
    "Tirhuta": ("Tirh",),
    "Toto": (),
    "Ugaritic": ("Ugar",),
    "Vai": ("Vaii",),
    "Vithkuqi": ("Vith",),
    "Wancho": ("Wcho",),
    "Warang_Citi": ("Wara",),
    "Yezidi": ("Yezi",),
    "Yi": ("Yiii",),
    "Zanabazar_Square": ("Zanb",),
}

#: Every Script value ECMA-262 accepts that RE2 can match -> its RE2 form. Unknown (no
#: script) is the complement of all the scripts RE2 knows.
SCRIPTS: dict[str, Rewrite] = {
    name: Rewrite(_groups(script))
    for script, aliases in SCRIPT_ALIASES.items()
    for name in (script, *aliases)
}
SCRIPTS["Unknown"] = SCRIPTS["Zzzz"] = Rewrite(_groups(*SCRIPT_ALIASES), complemented=True)

#: ECMA-262's binary properties that RE2 can write exactly. The others (Alphabetic,
#: Emoji, White_Space...) have no RE2 form and are refused.
BINARY_PROPERTIES: dict[str, Rewrite] = {
    "Any": Rewrite(("\\x{0}-\\x{10FFFF}",)),
    "ASCII": Rewrite(("\\x{0}-\\x{7F}",)),
    "ASCII_Hex_Digit": Rewrite(("0-9A-Fa-f",)),
    "AHex": Rewrite(("0-9A-Fa-f",)),
    "Assigned": Rewrite(_ASSIGNED),
}
