#include "store/dialect.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <set>
#include <vector>

#include "gpubill/base/errors.hpp"

namespace gpubill::store {

namespace {

enum class Tok { space, comment, literal, param, word, other };

struct Token {
  Tok kind;
  std::string text;
};

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The end of a quoted literal or name starting at `i` (quote doubled inside = one quote).
std::size_t quoted_end(std::string_view s, std::size_t i) {
  const char q = s[i];
  for (std::size_t j = i + 1; j < s.size(); ++j) {
    if (s[j] != q) continue;
    if (j + 1 < s.size() && s[j + 1] == q) {
      ++j;
      continue;
    }
    return j + 1;
  }
  throw StoreError("SQL has an unterminated quote: " + std::string(s.substr(i, 40)));
}

std::vector<Token> lex(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    std::size_t j = i + 1;
    Tok kind = Tok::other;
    if (std::isspace(static_cast<unsigned char>(c))) {
      while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j]))) ++j;
      kind = Tok::space;
    } else if (c == '-' && j < s.size() && s[j] == '-') {
      while (j < s.size() && s[j] != '\n') ++j;
      kind = Tok::comment;
    } else if (c == '/' && j < s.size() && s[j] == '*') {
      const auto end = s.find("*/", j + 1);
      j = end == std::string_view::npos ? s.size() : end + 2;
      kind = Tok::comment;
    } else if (c == '\'' || c == '"' || c == '`') {
      j = quoted_end(s, i);
      kind = Tok::literal;
    } else if (c == '?') {
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      kind = Tok::param;
    } else if (word_char(c)) {
      while (j < s.size() && word_char(s[j])) ++j;
      kind = Tok::word;
    }
    out.push_back({kind, std::string(s.substr(i, j - i))});
    i = j;
  }
  return out;
}

bool is(const Token& t, std::string_view word) {
  if (t.kind != Tok::word || t.text.size() != word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(t.text[i])) != word[i]) return false;
  }
  return true;
}

bool is_punct(const Token& t, char c) {
  return t.kind == Tok::other && t.text.size() == 1 && t.text[0] == c;
}

// Rewrites the tokens of one SQL text; `ddl` for migrations.
class Translator {
 public:
  Translator(std::string_view sql, std::string_view name, bool ddl)
      : t_(lex(sql)), name_(name), ddl_(ddl) {}

  std::string run() {
    for (std::size_t i = 0; i < t_.size(); ++i) {
      if (t_[i].kind == Tok::space || t_[i].kind == Tok::comment) {
        if (!skipping_) out_ += t_[i].text;
        continue;
      }
      if (at_statement_start_) start_statement(i);
      if (skipping_) {
        if (is_punct(t_[i], ';')) end_statement(true);
        continue;
      }
      i = rewrite(i);
    }
    end_statement(false);
    return out_;
  }

 private:
  // The index of the next token that is not space or a comment, from `i` on (size() at end).
  std::size_t next(std::size_t i) const {
    while (i < t_.size() && (t_[i].kind == Tok::space || t_[i].kind == Tok::comment)) ++i;
    return i;
  }
  bool next_is(std::size_t i, std::string_view word) const {
    const auto j = next(i);
    return j < t_.size() && is(t_[j], word);
  }

  [[noreturn]] void refuse(const std::string& what) const {
    throw StoreError((name_.empty() ? std::string("SQL") : "migration " + std::string(name_)) +
                     ": " + what);
  }

  void start_statement(std::size_t i) {
    at_statement_start_ = false;
    skipping_ = is(t_[i], "PRAGMA");
    if (ddl_ && is(t_[i], "CREATE") && next_is(i + 1, "TRIGGER")) {
      refuse(
          "CREATE TRIGGER has no translation (a PostgreSQL trigger calls a function): write "
          "migrations/pg/" +
          std::string(name_) + " for PostgreSQL");
    }
  }

  void end_statement(bool had_semicolon) {
    if (!skipping_) {
      if (on_conflict_) out_ += " ON CONFLICT DO NOTHING";
      if (had_semicolon) out_ += ';';
    }
    on_conflict_ = false;
    skipping_ = false;
    at_statement_start_ = true;
  }

  std::string param(const Token& t) {
    int n = 0;
    if (t.text.size() == 1) {
      n = ++largest_param_;
    } else {
      n = std::stoi(t.text.substr(1));
      if (n > largest_param_) largest_param_ = n;
    }
    return "$" + std::to_string(n);
  }

  // PostgreSQL types a parameter where it first appears; in "?N IS NULL" it cannot.
  void check_typed(std::size_t i) {
    const std::string number =
        t_[i].text.size() == 1 ? std::to_string(largest_param_ + 1) : t_[i].text.substr(1);
    if (!seen_params_.insert(number).second) return;
    auto j = next(i + 1);
    if (j >= t_.size() || !is(t_[j], "IS")) return;
    if (next_is(j + 1, "NOT")) j = next(j + 1);
    if (!next_is(j + 1, "NULL")) return;
    refuse("parameter ?" + number +
           " is first used in 'IS NULL', where PostgreSQL cannot tell "
           "its type: write CAST(?" +
           number + " AS INTEGER) IS NULL (or AS TEXT)");
  }

  // Whether the column definition whose type is token `i` names its own COLLATE.
  bool collated(std::size_t i) const {
    int depth = 0;
    for (std::size_t j = i + 1; j < t_.size(); ++j) {
      if (is_punct(t_[j], '(')) ++depth;
      if (is_punct(t_[j], ')') && --depth < 0) return false;
      if ((is_punct(t_[j], ',') && depth == 0) || is_punct(t_[j], ';')) return false;
      if (is(t_[j], "COLLATE")) return true;
    }
    return false;
  }

  std::size_t rewrite(std::size_t i);
  std::size_t rewrite_insert(std::size_t i);
  std::size_t rewrite_is(std::size_t i);
  std::size_t rewrite_json_each(std::size_t i);
  std::size_t rewrite_group_concat(std::size_t i);

  std::vector<Token> t_;
  std::string_view name_;
  bool ddl_;
  std::string out_;
  int largest_param_ = 0;
  std::set<std::string> seen_params_;
  bool at_statement_start_ = true;
  bool skipping_ = false;
  bool on_conflict_ = false;
  int group_concat_depth_ = -1;  // paren depth of an open group_concat(…), -1 = none
  int depth_ = 0;
  bool group_concat_comma_ = false;
};

std::size_t Translator::rewrite(std::size_t i) {
  const Token& t = t_[i];
  if (t.kind == Tok::param) {
    check_typed(i);
    out_ += param(t);
  } else if (is_punct(t, ';')) {
    end_statement(true);
  } else if (is_punct(t, '(')) {
    ++depth_;
    out_ += '(';
  } else if (is_punct(t, ')')) {
    if (depth_ == group_concat_depth_) {
      if (!group_concat_comma_) out_ += ", ','";
      group_concat_depth_ = -1;
    }
    --depth_;
    out_ += ')';
  } else if (is_punct(t, ',') && depth_ == group_concat_depth_) {
    group_concat_comma_ = true;
    out_ += ',';
  } else if (is(t, "INSERT")) {
    return rewrite_insert(i);
  } else if (is(t, "IS")) {
    return rewrite_is(i);
  } else if (is(t, "JSON_EACH")) {
    return rewrite_json_each(i);
  } else if (is(t, "GROUP_CONCAT")) {
    return rewrite_group_concat(i);
  } else if (is(t, "ROWID")) {
    refuse("rowid has no PostgreSQL equivalent: name the table's key column instead");
  } else if (is(t, "NOCASE")) {
    out_ += "gpubill_nocase";
  } else if (is(t, "BLOB")) {
    out_ += "BYTEA";
  } else if (ddl_ && is(t, "TEXT") && !collated(i)) {
    out_ += t.text + " COLLATE \"C\"";
  } else if (is(t, "INTEGER")) {
    const auto j = next(i + 1);
    if (j < t_.size() && is(t_[j], "PRIMARY") && next_is(j + 1, "KEY")) {
      out_ += "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY";
      return next(j + 1);
    }
    out_ += "BIGINT";
  } else if (is(t, "AUTOINCREMENT") || is(t, "STRICT") ||
             (is(t, "WITHOUT") && next_is(i + 1, "ROWID"))) {
    refuse(t.text + " has no translation for PostgreSQL: write migrations/pg/" +
           std::string(name_));
  } else {
    out_ += t.text;
  }
  return i;
}

// INSERT OR IGNORE → INSERT … ON CONFLICT DO NOTHING; other conflict clauses are refused.
std::size_t Translator::rewrite_insert(std::size_t i) {
  out_ += t_[i].text;
  const auto j = next(i + 1);
  if (j >= t_.size() || !is(t_[j], "OR")) return i;
  const auto k = next(j + 1);
  if (k < t_.size() && is(t_[k], "IGNORE")) {
    on_conflict_ = true;
    return k;
  }
  refuse("INSERT OR " + (k < t_.size() ? t_[k].text : std::string()) +
         " has no translation: use INSERT … ON CONFLICT … DO UPDATE");
}

// x IS ?N → x IS NOT DISTINCT FROM $N (SQLite's IS compares NULLs as equal values).
std::size_t Translator::rewrite_is(std::size_t i) {
  std::size_t j = next(i + 1);
  const bool negated = j < t_.size() && is(t_[j], "NOT");
  if (negated) j = next(j + 1);
  if (j >= t_.size() || t_[j].kind != Tok::param) {
    out_ += t_[i].text;
    return i;
  }
  out_ += negated ? "IS DISTINCT FROM " : "IS NOT DISTINCT FROM ";
  out_ += param(t_[j]);
  return j;
}

std::size_t Translator::rewrite_json_each(std::size_t i) {
  const auto open = next(i + 1);
  const auto arg = next(open + 1);
  const auto close = next(arg + 1);
  if (close >= t_.size() || !is_punct(t_[open], '(') || t_[arg].kind != Tok::param ||
      !is_punct(t_[close], ')')) {
    refuse("json_each translates only with one parameter, json_each(?N)");
  }
  out_ += "json_array_elements_text(CAST(" + param(t_[arg]) + " AS json))";
  return close;
}

std::size_t Translator::rewrite_group_concat(std::size_t i) {
  const auto open = next(i + 1);
  if (open >= t_.size() || !is_punct(t_[open], '(') || group_concat_depth_ >= 0) {
    refuse("group_concat translates only as group_concat(x) or group_concat(x, sep), unnested");
  }
  out_ += "string_agg(";
  ++depth_;
  group_concat_depth_ = depth_;
  group_concat_comma_ = false;
  return open;
}

}  // namespace

std::string translate_statement(std::string_view sqlite_sql) {
  return Translator(sqlite_sql, "", false).run();
}

int count_parameters(std::string_view sqlite_sql) {
  int largest = 0;
  for (const auto& t : lex(sqlite_sql)) {
    if (t.kind != Tok::param) continue;
    largest = t.text.size() == 1 ? largest + 1 : std::max(largest, std::stoi(t.text.substr(1)));
  }
  return largest;
}

std::string translate_migration(std::string_view name, std::string_view sqlite_sql) {
  return Translator(sqlite_sql, name, true).run();
}

}  // namespace gpubill::store
