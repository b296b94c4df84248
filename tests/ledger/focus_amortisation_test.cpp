// Spreading a purchase over its hours (engine/ledger/focus_amortisation.hpp): the shares add up to
// the amount exactly, each is within one quantum of the exact proportion, and they depend only on
// the purchase (the same share whatever else is exported).
#include <catch2/catch.hpp>

#include "ledger/focus_amortisation.hpp"

using gpubill::Decimal;
namespace a = gpubill::focus_amortisation;

TEST_CASE("amortisation: the hours' shares add up to the purchase exactly", "[focus]") {
  struct Case {
    const char* amount;
    std::int64_t span;
  };
  const Case cases[] = {
      {"23232", 181 * 86400},             // a 6-month order: 4344 hours
      {"4400", 31 * 86400 + 1234},        // a month and a partial last hour
      {"0.07", 5 * 3600},                 // fewer cents than hours
      {"-1200.5", 100 * 3600 + 59},       // a refund: negative shares
      {"23441.0958904114", 3720 * 3600},  // finer than a cent: spread in its own decimals
      {"12.34", 1800},                    // less than an hour: one slice
  };
  for (const auto& c : cases) {
    INFO(c.amount << " over " << c.span << " s");
    const Decimal amount = Decimal::parse(c.amount);
    const Decimal quantum = a::quantum_of(amount);
    const std::int64_t n = a::slice_count(c.span);
    Decimal total;
    for (std::int64_t k = 0; k < n; ++k) {
      const Decimal share = a::slice_share(amount, quantum, c.span, k);
      total += share;
      CHECK(share.units() % quantum.units() == 0);
      CHECK((share.sign() == 0 || share.sign() == amount.sign()));
      // Within a quantum of amount × seconds / span.
      const std::int64_t seconds = std::min<std::int64_t>(3600, c.span - k * 3600);
      const Decimal exact =
          Decimal::divide(amount * seconds, c.span, 12, gpubill::RoundingMode::half_even);
      const Decimal gap = share - exact;
      CHECK((gap < quantum && -gap < quantum));
    }
    CHECK(total == amount);
  }
  CHECK(a::slice_count(3600) == 1);
  CHECK(a::slice_count(3601) == 2);
  CHECK(a::quantum_of(Decimal::parse("23232")) == Decimal::parse("0.01"));
  CHECK(a::quantum_of(Decimal::parse("7.545")) == Decimal::parse("0.001"));
  CHECK(a::quantum_for_factor(Decimal::parse("15.09")) == Decimal::parse("0.0000000001"));
  CHECK(a::exact_product(Decimal::parse("15.09"), Decimal::parse("0.0277777778")) ==
        Decimal::parse("0.419166667002"));
  CHECK_FALSE(a::exact_product(Decimal::parse("3.06"), Decimal::parse("0.016666666667")));
}
