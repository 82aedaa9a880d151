// How Go's regexp (Go 1.26, which kube-apiserver v1.36 is built with; Unicode 15.0.0) finds the table of a Unicode
// class `\p{name}`: regexp/syntax's unicodeTable. The name is first put in a canonical form (a capital, then lower
// case, without `_`, `-` or spaces) and looked up in the unicode package's maps, whose keys are not all canonical:
// so `\p{greek}` and `\p{Letter}` compile, while `\p{Old_Italic}` and `\p{SignWriting}` do not. re2js looks the
// name up as written, in Unicode 16's tables; go-regexp.ts turns each name into the one re2js knows, or refuses it
// as Go does.

/** unicode.Categories' keys. */
const categories = [
  ...['C', 'Cc', 'Cf', 'Cn', 'Co', 'Cs', 'L', 'LC', 'Ll', 'Lm', 'Lo', 'Lt', 'Lu', 'M', 'Mc', 'Me', 'Mn'],
  ...['N', 'Nd', 'Nl', 'No', 'P', 'Pc', 'Pd', 'Pe', 'Pf', 'Pi', 'Po', 'Ps', 'S', 'Sc', 'Sk', 'Sm', 'So'],
  ...['Z', 'Zl', 'Zp', 'Zs'],
];

/** unicode.Scripts' keys (Unicode 15.0.0). */
const scripts =
  `Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali Bhaiksuki
Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma Cham Cherokee Chorasmian
Common Coptic Cuneiform Cypriot Cypro_Minoan Cyrillic Deseret Devanagari Dives_Akuru Dogra Duployan
Egyptian_Hieroglyphs Elbasan Elymaic Ethiopic Georgian Glagolitic Gothic Grantha Greek Gujarati Gunjala_Gondi Gurmukhi
Han Hangul Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic Inherited Inscriptional_Pahlavi
Inscriptional_Parthian Javanese Kaithi Kannada Katakana Kawi Kayah_Li Kharoshthi Khitan_Small_Script Khmer Khojki
Khudawadi Lao Latin Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian Mahajani Makasar Malayalam Mandaic Manichaean
Marchen Masaram_Gondi Medefaidrin Meetei_Mayek Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mongolian
Mro Multani Myanmar Nabataean Nag_Mundari Nandinagari New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki
Old_Hungarian Old_Italic Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Old_Uyghur
Oriya Osage Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic Samaritan
Saurashtra Sharada Shavian Siddham SignWriting Sinhala Sogdian Sora_Sompeng Soyombo Sundanese Syloti_Nagri Syriac
Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangsa Tangut Telugu Thaana Thai Tibetan Tifinagh Tirhuta Toto
Ugaritic Vai Vithkuqi Wancho Warang_Citi Yezidi Yi Zanabazar_Square`.split(/\s+/);

/** unicode.CategoryAliases: long names of the categories. */
const categoryAliases: Readonly<Record<string, string>> = {
  Cased_Letter: 'LC',
  Close_Punctuation: 'Pe',
  Combining_Mark: 'M',
  Connector_Punctuation: 'Pc',
  Control: 'Cc',
  Currency_Symbol: 'Sc',
  Dash_Punctuation: 'Pd',
  Decimal_Number: 'Nd',
  Enclosing_Mark: 'Me',
  Final_Punctuation: 'Pf',
  Format: 'Cf',
  Initial_Punctuation: 'Pi',
  Letter: 'L',
  Letter_Number: 'Nl',
  Line_Separator: 'Zl',
  Lowercase_Letter: 'Ll',
  Mark: 'M',
  Math_Symbol: 'Sm',
  Modifier_Letter: 'Lm',
  Modifier_Symbol: 'Sk',
  Nonspacing_Mark: 'Mn',
  Number: 'N',
  Open_Punctuation: 'Ps',
  Other: 'C',
  Other_Letter: 'Lo',
  Other_Number: 'No',
  Other_Punctuation: 'Po',
  Other_Symbol: 'So',
  Paragraph_Separator: 'Zp',
  Private_Use: 'Co',
  Punctuation: 'P',
  Separator: 'Z',
  Space_Separator: 'Zs',
  Spacing_Mark: 'Mc',
  Surrogate: 'Cs',
  Symbol: 'S',
  Titlecase_Letter: 'Lt',
  Unassigned: 'Cn',
  Uppercase_Letter: 'Lu',
  cntrl: 'Cc',
  digit: 'Nd',
  punct: 'P',
};

/** Go's canonicalName: a capital first, lower case after it, `_`, `-` and spaces dropped (ASCII letters only). */
export function canonicalClassName(name: string): string {
  let result = '';
  let first = true;
  for (const character of name) {
    if (character === '_' || character === '-' || character === ' ') continue;
    if (first) {
      result += /^[a-z]$/.test(character) ? character.toUpperCase() : character;
      first = false;
    } else {
      result += /^[A-Z]$/.test(character) ? character.toLowerCase() : character;
    }
  }
  return result;
}

/** Canonical name -> the name re2js knows (the key of the same table), for every name Go resolves, in its order. */
const tableNames = new Map<string, string>();
// unicodeTable's special cases, which re2js knows by these names.
for (const name of ['Any', 'Assigned', 'Ascii', 'Lc']) tableNames.set(name, name);
// A key is found only when it is canonical already (so not LC, Old_Italic or SignWriting).
for (const key of [...categories, ...scripts])
  if (canonicalClassName(key) === key && !tableNames.has(key)) tableNames.set(key, key);
for (const [alias, key] of Object.entries(categoryAliases)) {
  const canonical = canonicalClassName(alias);
  if (!tableNames.has(canonical)) tableNames.set(canonical, key);
}

/** The table re2js should read for Go's `\p{name}`, or undefined where Go knows none (an invalid class). */
export function goUnicodeTableName(name: string): string | undefined {
  return tableNames.get(canonicalClassName(name));
}
