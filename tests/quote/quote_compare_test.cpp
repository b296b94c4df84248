// Comparing a quote with an earlier one (gpubill/quote/quote_compare.hpp): matching by offer, rank
// moves, exact deltas and percentages, and reading the earlier quote's JSON.
#include <catch2/catch.hpp>

#include "gpubill/base/errors.hpp"
#include "gpubill/base/percent.hpp"
#include "gpubill/quote/quote_compare.hpp"
#include "temp_dir.hpp"
#include "test_values.hpp"

using namespace gpubill;
using gpubill::testing::cny;
using gpubill::testing::TempDir;

namespace {

QuoteSnapshotLine line(const char* type, const char* mode, std::size_t rank, const char* price,
                       const char* total) {
  return {"testcloud",
          "*",
          type,
          mode,
          rank,
          price ? std::optional<Money>(cny(price)) : std::nullopt,
          total ? std::optional<Money>(cny(total)) : std::nullopt,
          std::nullopt,
          std::nullopt};
}

std::string describe(const QuoteComparison& c) {
  std::string out;
  for (const auto& l : c.lines) {
    const auto& k = l.after ? *l.after : *l.before;
    out += std::string(to_string(l.kind)) + " " + k.instance_type + "/" + k.mode +
           (l.rank_move ? " move " + std::to_string(*l.rank_move) : "") +
           (l.total_delta ? " delta " + l.total_delta->to_string() : "") +
           (l.total_percent ? " " + percent_text(*l.total_percent) : "") + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("compare_quotes matches lines by offer and measures what moved", "[quote][compare]") {
  QuoteSnapshot before, after;
  before.lines = {line("T.SMALL", "payg", 1, "10", "100"), line("T.LARGE", "payg", 2, "20", "200"),
                  line("T.SMALL", "prepaid", 3, "3000", "3000"),
                  line("T.OLD", "payg", 4, "30", "300"), line("T.X", "", 5, nullptr, nullptr)};
  // T.LARGE now cheaper than T.SMALL; T.OLD gone; T.NEW new; T.X still unknown.
  after.lines = {line("T.LARGE", "payg", 1, "9", "90"), line("T.SMALL", "payg", 2, "12", "120"),
                 line("T.NEW", "payg", 3, "25", "250"),
                 line("T.SMALL", "prepaid", 4, "3000", "3000"),
                 line("T.X", "", 5, nullptr, nullptr)};
  const QuoteComparison c = compare_quotes(before, after);
  CHECK(describe(c) ==
        "price T.LARGE/payg move 1 delta -110 -55.00\n"
        "price T.SMALL/payg move -1 delta 20 +20.00\n"
        "new T.NEW/payg\n"
        "moved T.SMALL/prepaid move -1 delta 0 0.00\n"  // same price, lower rank: not a change
        "same T.X/ move 0\n"
        "removed T.OLD/payg\n");
  CHECK(*c.lines[0].price_delta == Decimal::parse("-11"));
  CHECK(*c.lines[0].price_percent == Decimal::parse("-55"));
  CHECK(c.count(LineChangeKind::price) == 2);
  CHECK(c.count(LineChangeKind::moved) == 1);
  CHECK(c.count(LineChangeKind::changed) == 0);
  CHECK(c.count(LineChangeKind::same) == 1);

  SECTION("current lines beyond the top are shown only when the earlier quote has them") {
    const QuoteComparison top2 = compare_quotes(before, after, 2);
    CHECK(describe(top2) ==
          "price T.LARGE/payg move 1 delta -110 -55.00\n"
          "price T.SMALL/payg move -1 delta 20 +20.00\n"
          "moved T.SMALL/prepaid move -1 delta 0 0.00\n"
          "same T.X/ move 0\n"
          "removed T.OLD/payg\n");
  }
}

TEST_CASE("a price that became known is a change without a delta", "[quote][compare]") {
  QuoteSnapshot before, after;
  before.lines = {line("T.SMALL", "payg", 1, nullptr, nullptr)};
  after.lines = {line("T.SMALL", "payg", 1, "10", "100")};
  const QuoteComparison c = compare_quotes(before, after);
  REQUIRE(c.lines.size() == 1);
  CHECK(c.lines[0].kind == LineChangeKind::changed);
  CHECK_FALSE(c.lines[0].total_delta);
}

TEST_CASE("a total moved only by the exchange rate is an fx move, not a price move",
          "[quote][compare]") {
  const auto usd = Money(Decimal(1), Currency::parse("USD"));
  QuoteSnapshot before, after;
  before.lines = {
      {"testcloud-us", "*", "U.GPU", "payg", 1, usd, cny("70.74"), std::nullopt, std::nullopt},
      {"testcloud", "*", "T.SMALL", "payg", 2, cny("10"), cny("100"), std::nullopt, std::nullopt}};
  after.lines = {
      {"testcloud-us", "*", "U.GPU", "payg", 1, usd, cny("68.90"), std::nullopt, std::nullopt},
      {"testcloud", "*", "T.SMALL", "payg", 2, cny("10"), cny("100"), std::nullopt, std::nullopt}};
  const QuoteComparison c = compare_quotes(before, after);
  REQUIRE(c.lines.size() == 2);
  CHECK(c.lines[0].kind == LineChangeKind::fx);
  CHECK(*c.lines[0].price_delta == Decimal{});
  CHECK(*c.lines[0].total_delta == Decimal::parse("-1.84"));
  CHECK(c.lines[1].kind == LineChangeKind::same);
}

TEST_CASE("read_quote_snapshot reads a quote, bare or in a schema_version envelope",
          "[quote][compare]") {
  TempDir dir;
  const std::string quote = R"({"currency": "CNY", "at": "2020-03-01T00:00:00Z", "lines": [
    {"rank": 1, "provider": "testcloud", "region": "*", "instance_type": "T.SMALL", "mode": "payg",
     "priced": true, "unit_price": {"amount": "10.00", "currency": "CNY"},
     "total": {"amount": "100.00", "currency": "CNY"}, "notes": []},
    {"rank": 2, "provider": "testcloud", "region": "*", "instance_type": "T.X", "mode": null,
     "priced": false, "total": null, "unknown_reason": "no price"}]})";
  for (const std::string& text : {quote, R"({"schema_version": 2, "quote": )" + quote + "}",
                                  R"({"schema_version": 2, )" + quote.substr(1)}) {
    INFO(text);
    const QuoteSnapshot s = read_quote_snapshot(dir.write("q.json", text));
    CHECK(s.currency == Currency::parse("CNY"));
    CHECK(s.at == parse_instant("2020-03-01T00:00:00Z"));
    REQUIRE(s.lines.size() == 2);
    CHECK(s.lines[0].instance_type == "T.SMALL");
    CHECK(*s.lines[0].total == cny("100.00"));
    CHECK(*s.lines[0].unit_price == cny("10.00"));
    CHECK(s.lines[1].mode.empty());
    CHECK_FALSE(s.lines[1].total);
  }
}

TEST_CASE("read_quote_snapshot names the file, place and field of what is wrong",
          "[quote][compare]") {
  TempDir dir;
  const auto message = [&](const std::string& text) {
    const std::string path = dir.write("q.json", text);
    try {
      (void)read_quote_snapshot(path);
    } catch (const InputError& e) {
      return std::string(e.what()).substr(path.size());
    }
    return std::string("no error");
  };
  CHECK(message("[1, 2]") ==
        ": field 'lines': not a gpubill quote (write one with `gpubill quote … --format json > "
        "FILE`)");
  CHECK(message(R"({"schema_version": 2, "quote": {"currency": "CNY"}})") ==
        ":/quote: field 'lines': not a gpubill quote (write one with `gpubill quote … --format "
        "json > FILE`)");
  CHECK(message(R"({"currency": "XYZ", "lines": []})") ==
        ": field 'currency': unknown currency 'XYZ' (known: CNY, USD, EUR, HKD, JPY, SGD, GBP, "
        "KRW, INR)");
  CHECK(message(R"({"currency": "CNY", "lines": [{"provider": "p", "region": "*",
      "instance_type": "t", "rank": "1"}]})") ==
        ":/lines/0: field 'rank': expected a whole number from 1");
  CHECK(message(R"({"currency": "CNY", "lines": [{"rank": 1, "provider": "p", "region": "*",
      "instance_type": "t", "total": {"amount": 100, "currency": "CNY"}}]})") ==
        ":/lines/0/total: field 'amount': amounts are exact decimal strings (\"100.00\"), not "
        "JSON numbers");
  CHECK(message("{").rfind(":line 1: invalid JSON: ", 0) == 0);
}
