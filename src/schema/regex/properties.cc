// Property names from ECMA-262 §22.2.2.9 tables (General_Category values,
// binary properties, Script / Script_Extensions) mapped to the engines.

#include "properties.h"

#include <array>

namespace weld::schema::regex_detail {
namespace {

struct Alias {
  std::string_view name;
  std::string_view canonical;
};

// General_Category long names and aliases -> the short name both engines use.
constexpr std::array kGeneralCategories{
    Alias{"L", "L"},           Alias{"Letter", "L"},
    Alias{"LC", "LC"},         Alias{"Cased_Letter", "LC"},
    Alias{"Lu", "Lu"},         Alias{"Uppercase_Letter", "Lu"},
    Alias{"Ll", "Ll"},         Alias{"Lowercase_Letter", "Ll"},
    Alias{"Lt", "Lt"},         Alias{"Titlecase_Letter", "Lt"},
    Alias{"Lm", "Lm"},         Alias{"Modifier_Letter", "Lm"},
    Alias{"Lo", "Lo"},         Alias{"Other_Letter", "Lo"},
    Alias{"M", "M"},           Alias{"Mark", "M"},
    Alias{"Combining_Mark", "M"},
    Alias{"Mn", "Mn"},         Alias{"Nonspacing_Mark", "Mn"},
    Alias{"Mc", "Mc"},         Alias{"Spacing_Mark", "Mc"},
    Alias{"Me", "Me"},         Alias{"Enclosing_Mark", "Me"},
    Alias{"N", "N"},           Alias{"Number", "N"},
    Alias{"Nd", "Nd"},         Alias{"Decimal_Number", "Nd"},
    Alias{"digit", "Nd"},  // not ECMAScript; the JSON-Schema-Test-Suite expects it
    Alias{"Nl", "Nl"},         Alias{"Letter_Number", "Nl"},
    Alias{"No", "No"},         Alias{"Other_Number", "No"},
    Alias{"P", "P"},           Alias{"Punctuation", "P"},
    Alias{"punct", "P"},
    Alias{"Pc", "Pc"},         Alias{"Connector_Punctuation", "Pc"},
    Alias{"Pd", "Pd"},         Alias{"Dash_Punctuation", "Pd"},
    Alias{"Ps", "Ps"},         Alias{"Open_Punctuation", "Ps"},
    Alias{"Pe", "Pe"},         Alias{"Close_Punctuation", "Pe"},
    Alias{"Pi", "Pi"},         Alias{"Initial_Punctuation", "Pi"},
    Alias{"Pf", "Pf"},         Alias{"Final_Punctuation", "Pf"},
    Alias{"Po", "Po"},         Alias{"Other_Punctuation", "Po"},
    Alias{"S", "S"},           Alias{"Symbol", "S"},
    Alias{"Sm", "Sm"},         Alias{"Math_Symbol", "Sm"},
    Alias{"Sc", "Sc"},         Alias{"Currency_Symbol", "Sc"},
    Alias{"Sk", "Sk"},         Alias{"Modifier_Symbol", "Sk"},
    Alias{"So", "So"},         Alias{"Other_Symbol", "So"},
    Alias{"Z", "Z"},           Alias{"Separator", "Z"},
    Alias{"Zs", "Zs"},         Alias{"Space_Separator", "Zs"},
    Alias{"Zl", "Zl"},         Alias{"Line_Separator", "Zl"},
    Alias{"Zp", "Zp"},         Alias{"Paragraph_Separator", "Zp"},
    Alias{"C", "C"},           Alias{"Other", "C"},
    Alias{"Cc", "Cc"},         Alias{"Control", "Cc"},
    Alias{"cntrl", "Cc"},
    Alias{"Cf", "Cf"},         Alias{"Format", "Cf"},
    Alias{"Cs", "Cs"},         Alias{"Surrogate", "Cs"},
    Alias{"Co", "Co"},         Alias{"Private_Use", "Co"},
    Alias{"Cn", "Cn"},         Alias{"Unassigned", "Cn"},
};

// Binary properties (ECMA-262 table "Binary Unicode property aliases"):
// PCRE2 (10.40+) knows them by their long name.
constexpr std::array kBinaryProperties{
    Alias{"ASCII_Hex_Digit", "ASCII_Hex_Digit"}, Alias{"AHex", "ASCII_Hex_Digit"},
    Alias{"Alphabetic", "Alphabetic"}, Alias{"Alpha", "Alphabetic"},
    Alias{"Bidi_Control", "Bidi_Control"}, Alias{"Bidi_C", "Bidi_Control"},
    Alias{"Bidi_Mirrored", "Bidi_Mirrored"}, Alias{"Bidi_M", "Bidi_Mirrored"},
    Alias{"Case_Ignorable", "Case_Ignorable"}, Alias{"CI", "Case_Ignorable"},
    Alias{"Cased", "Cased"},
    Alias{"Changes_When_Casefolded", "Changes_When_Casefolded"}, Alias{"CWCF", "Changes_When_Casefolded"},
    Alias{"Changes_When_Casemapped", "Changes_When_Casemapped"}, Alias{"CWCM", "Changes_When_Casemapped"},
    Alias{"Changes_When_Lowercased", "Changes_When_Lowercased"}, Alias{"CWL", "Changes_When_Lowercased"},
    Alias{"Changes_When_NFKC_Casefolded", "Changes_When_NFKC_Casefolded"},
    Alias{"CWKCF", "Changes_When_NFKC_Casefolded"},
    Alias{"Changes_When_Titlecased", "Changes_When_Titlecased"}, Alias{"CWT", "Changes_When_Titlecased"},
    Alias{"Changes_When_Uppercased", "Changes_When_Uppercased"}, Alias{"CWU", "Changes_When_Uppercased"},
    Alias{"Dash", "Dash"},
    Alias{"Default_Ignorable_Code_Point", "Default_Ignorable_Code_Point"},
    Alias{"DI", "Default_Ignorable_Code_Point"},
    Alias{"Deprecated", "Deprecated"}, Alias{"Dep", "Deprecated"},
    Alias{"Diacritic", "Diacritic"}, Alias{"Dia", "Diacritic"},
    Alias{"Emoji", "Emoji"},
    Alias{"Emoji_Component", "Emoji_Component"}, Alias{"EComp", "Emoji_Component"},
    Alias{"Emoji_Modifier", "Emoji_Modifier"}, Alias{"EMod", "Emoji_Modifier"},
    Alias{"Emoji_Modifier_Base", "Emoji_Modifier_Base"}, Alias{"EBase", "Emoji_Modifier_Base"},
    Alias{"Emoji_Presentation", "Emoji_Presentation"}, Alias{"EPres", "Emoji_Presentation"},
    Alias{"Extended_Pictographic", "Extended_Pictographic"}, Alias{"ExtPict", "Extended_Pictographic"},
    Alias{"Extender", "Extender"}, Alias{"Ext", "Extender"},
    Alias{"Grapheme_Base", "Grapheme_Base"}, Alias{"Gr_Base", "Grapheme_Base"},
    Alias{"Grapheme_Extend", "Grapheme_Extend"}, Alias{"Gr_Ext", "Grapheme_Extend"},
    Alias{"Hex_Digit", "Hex_Digit"}, Alias{"Hex", "Hex_Digit"},
    Alias{"IDS_Binary_Operator", "IDS_Binary_Operator"}, Alias{"IDSB", "IDS_Binary_Operator"},
    Alias{"IDS_Trinary_Operator", "IDS_Trinary_Operator"}, Alias{"IDST", "IDS_Trinary_Operator"},
    Alias{"ID_Continue", "ID_Continue"}, Alias{"IDC", "ID_Continue"},
    Alias{"ID_Start", "ID_Start"}, Alias{"IDS", "ID_Start"},
    Alias{"Ideographic", "Ideographic"}, Alias{"Ideo", "Ideographic"},
    Alias{"Join_Control", "Join_Control"}, Alias{"Join_C", "Join_Control"},
    Alias{"Logical_Order_Exception", "Logical_Order_Exception"}, Alias{"LOE", "Logical_Order_Exception"},
    Alias{"Lowercase", "Lowercase"}, Alias{"Lower", "Lowercase"},
    Alias{"Math", "Math"},
    Alias{"Noncharacter_Code_Point", "Noncharacter_Code_Point"}, Alias{"NChar", "Noncharacter_Code_Point"},
    Alias{"Pattern_Syntax", "Pattern_Syntax"}, Alias{"Pat_Syn", "Pattern_Syntax"},
    Alias{"Pattern_White_Space", "Pattern_White_Space"}, Alias{"Pat_WS", "Pattern_White_Space"},
    Alias{"Quotation_Mark", "Quotation_Mark"}, Alias{"QMark", "Quotation_Mark"},
    Alias{"Radical", "Radical"},
    Alias{"Regional_Indicator", "Regional_Indicator"}, Alias{"RI", "Regional_Indicator"},
    Alias{"Sentence_Terminal", "Sentence_Terminal"}, Alias{"STerm", "Sentence_Terminal"},
    Alias{"Soft_Dotted", "Soft_Dotted"}, Alias{"SD", "Soft_Dotted"},
    Alias{"Terminal_Punctuation", "Terminal_Punctuation"}, Alias{"Term", "Terminal_Punctuation"},
    Alias{"Unified_Ideograph", "Unified_Ideograph"}, Alias{"UIdeo", "Unified_Ideograph"},
    Alias{"Uppercase", "Uppercase"}, Alias{"Upper", "Uppercase"},
    Alias{"Variation_Selector", "Variation_Selector"}, Alias{"VS", "Variation_Selector"},
    Alias{"XID_Continue", "XID_Continue"}, Alias{"XIDC", "XID_Continue"},
    Alias{"XID_Start", "XID_Start"}, Alias{"XIDS", "XID_Start"},
};

// ISO 15924 codes ECMAScript accepts as Script values, for the scripts people
// write in schemas; RE2 only knows the long names.
constexpr std::array kScriptCodes{
    Alias{"Arab", "Arabic"},     Alias{"Armn", "Armenian"},   Alias{"Beng", "Bengali"},
    Alias{"Cyrl", "Cyrillic"},   Alias{"Deva", "Devanagari"}, Alias{"Ethi", "Ethiopic"},
    Alias{"Geor", "Georgian"},   Alias{"Grek", "Greek"},      Alias{"Gujr", "Gujarati"},
    Alias{"Guru", "Gurmukhi"},   Alias{"Hang", "Hangul"},     Alias{"Hani", "Han"},
    Alias{"Hebr", "Hebrew"},     Alias{"Hira", "Hiragana"},   Alias{"Kana", "Katakana"},
    Alias{"Khmr", "Khmer"},      Alias{"Knda", "Kannada"},    Alias{"Laoo", "Lao"},
    Alias{"Latn", "Latin"},      Alias{"Mlym", "Malayalam"},  Alias{"Mong", "Mongolian"},
    Alias{"Mymr", "Myanmar"},    Alias{"Orya", "Oriya"},      Alias{"Sinh", "Sinhala"},
    Alias{"Taml", "Tamil"},      Alias{"Telu", "Telugu"},     Alias{"Thaa", "Thaana"},
    Alias{"Thai", "Thai"},       Alias{"Tibt", "Tibetan"},    Alias{"Zyyy", "Common"},
    Alias{"Zinh", "Inherited"},  Alias{"Qaai", "Inherited"},
};

template <std::size_t N>
std::optional<std::string_view> lookup(const std::array<Alias, N>& table, std::string_view name) {
  for (const Alias& alias : table) {
    if (alias.name == name) return alias.canonical;
  }
  return std::nullopt;
}

bool is_identifier_value(std::string_view value) {
  if (value.empty()) return false;
  for (char c : value) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

PropertyTranslation from_ranges(std::vector<CodeRange> ranges) {
  PropertyTranslation result;
  result.ranges = std::move(ranges);
  return result;
}

PropertyTranslation general_category(std::string_view short_name, bool negated) {
  PropertyTranslation result;
  std::string p = negated ? "\\P{" : "\\p{";
  if (short_name == "LC") {
    // RE2 has no LC; the union works only un-negated.
    result.pcre2 = p + "L&}";
    if (negated) {
      result.re2_ok = false;
    } else {
      result.re2 = "\\p{Lu}\\p{Ll}\\p{Lt}";
    }
    return result;
  }
  result.pcre2 = p + std::string(short_name) + "}";
  result.re2 = result.pcre2;
  // RE2 lacks Cn (unassigned) and LC; everything else is in its tables.
  if (short_name == "Cn") result.re2_ok = false;
  return result;
}

}  // namespace

std::optional<PropertyTranslation> translate_property(std::string_view body, bool negated) {
  std::string p = negated ? "\\P{" : "\\p{";
  std::size_t eq = body.find('=');
  if (eq == std::string_view::npos) {
    if (body == "Any") return from_ranges({{0, 0x10FFFF}});
    if (body == "ASCII") return from_ranges({{0, 0x7F}});
    if (body == "ASCII_Hex_Digit" || body == "AHex") return from_ranges({{'0', '9'}, {'A', 'F'}, {'a', 'f'}});
    if (body == "White_Space" || body == "space") {
      return from_ranges({{0x09, 0x0D}, {0x20, 0x20}, {0x85, 0x85}, {0xA0, 0xA0}, {0x1680, 0x1680},
                          {0x2000, 0x200A}, {0x2028, 0x2029}, {0x202F, 0x202F}, {0x205F, 0x205F},
                          {0x3000, 0x3000}});
    }
    if (body == "Assigned") {
      PropertyTranslation result;
      result.pcre2 = negated ? "\\p{Cn}" : "\\P{Cn}";
      result.re2_ok = false;
      return result;
    }
    if (auto gc = lookup(kGeneralCategories, body)) return general_category(*gc, negated);
    if (auto binary = lookup(kBinaryProperties, body)) {
      PropertyTranslation result;
      result.pcre2 = p + std::string(*binary) + "}";
      result.re2_ok = false;
      return result;
    }
    return std::nullopt;
  }
  std::string_view name = body.substr(0, eq);
  std::string_view value = body.substr(eq + 1);
  if (name == "General_Category" || name == "gc") {
    auto gc = lookup(kGeneralCategories, value);
    if (!gc || value == "digit" || value == "punct" || value == "cntrl") return std::nullopt;
    return general_category(*gc, negated);
  }
  bool script = name == "Script" || name == "sc";
  bool extensions = name == "Script_Extensions" || name == "scx";
  if (!script && !extensions) return std::nullopt;
  if (!is_identifier_value(value)) return std::nullopt;
  std::string long_name(lookup(kScriptCodes, value).value_or(value));
  PropertyTranslation result;
  result.pcre2 = p + (extensions ? "scx:" : "sc:") + long_name + "}";
  if (extensions) {
    result.re2_ok = false;
  } else {
    result.re2 = p + long_name + "}";
  }
  return result;
}

}  // namespace weld::schema::regex_detail
