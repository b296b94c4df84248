// Commitment lines (reserved instances, committed use discounts) worked out by hand on the test
// catalog (quote_fixture.hpp) with test commitment rows: the total over whole terms including
// the upfront, the utilisation, the effective hourly rate and the break-even utilisation.
#include <catch2/catch.hpp>

#include "gpubill/quote/quote.hpp"
#include "quote_fixture.hpp"
#include "test_values.hpp"

using namespace gpubill;
using gpubill::testing::cny;
using gpubill::testing::line_with_id;
using gpubill::testing::quote_catalog;
using gpubill::testing::quote_workload;

namespace {

Money usd(const char* amount) {
  return Money(Decimal::parse(amount), Currency::parse("USD"));
}

CommitmentRow commitment(std::int64_t id, const char* provider, SubjectKind kind,
                         const char* subject, const char* region, CommitmentProgram program,
                         const char* cls, int months, CommitmentPayment payment,
                         const char* upfront, const char* hourly) {
  CommitmentRow r;
  r.id = id;
  r.provider = provider;
  r.subject_kind = kind;
  r.subject = subject;
  r.region = region;
  r.program = program;
  r.offering_class = cls;
  r.term_months = months;
  r.payment = payment;
  r.upfront = usd(upfront);
  r.hourly = usd(hourly);
  r.period.from = parse_instant("2019-01-01", true);
  r.source = std::string("test: commitment ") + subject;
  r.as_of = "2019-01-01";
  return r;
}

CatalogData catalog_with_commitments() {
  CatalogData d = quote_catalog();
  using P = CommitmentProgram;
  using Pay = CommitmentPayment;
  const auto inst = SubjectKind::instance;
  d.commitments = {
      commitment(901, "aws", inst, "p3.2xlarge", "us-east-1", P::reserved_instance, "standard", 12,
                 Pay::all_upfront, "17000", "0"),
      commitment(902, "aws", inst, "p3.2xlarge", "us-east-1", P::reserved_instance, "standard", 36,
                 Pay::no_upfront, "0", "1.20"),
      commitment(903, "google", inst, "n1-standard-8", "us-central1", P::committed_use, "", 12,
                 Pay::no_upfront, "0", "0.24"),
      commitment(904, "google", SubjectKind::gpu, "V100-SXM2-16GB", "us-central1", P::committed_use,
                 "", 12, Pay::no_upfront, "0", "1.562"),
      // A 3-year CUD for the host only: its GPUs' commitment is unknown, so no line.
      commitment(905, "google", inst, "n1-standard-8", "us-central1", P::committed_use, "", 36,
                 Pay::no_upfront, "0", "0.17"),
  };
  return d;
}

struct Committed {
  Catalog catalog;
  std::unique_ptr<QuoteEngine> engine;
  QuoteResult result;
  explicit Committed(const Workload& w, QuoteOptions options = {})
      : catalog(catalog_with_commitments()), engine(std::make_unique<QuoteEngine>(catalog)) {
    result = engine->quote(resolve_workload(w, catalog), options);
  }
  const QuoteLine& line(const std::string& id) const {
    const QuoteLine* l = line_with_id(result, id);
    INFO(id);
    REQUIRE(l != nullptr);
    return *l;
  }
};

}  // namespace

TEST_CASE("commitment lines for a one-GPU month", "[quote][commitment]") {
  Workload w = quote_workload({"V100"});
  w.duration.hours = Decimal(720);
  const Committed q(w);

  // AWS p3.2xlarge, 1-year standard RI, all upfront 17000 USD: one term (720 h ≤ 8760 h),
  // 17000 USD × 7.2688 = 123569.60 CNY; 8760 − 720 = 8040 committed hours after the workload.
  const auto& ri1 = q.line("aws/us-east-1/p3.2xlarge/reserved_1y/ri-standard-all-upfront");
  REQUIRE(ri1.commitment);
  CHECK(ri1.mode == BillingMode::reserved_1y);
  CHECK(ri1.commitment->row->id == 901);
  CHECK(ri1.commitment->terms == 1);
  CHECK(ri1.commitment->term_cost == usd("17000"));
  CHECK(*ri1.compute == usd("17000"));
  CHECK(*ri1.total == cny("123569.6"));
  CHECK(ri1.commitment->hours_beyond_workload == 8040);
  // Used 720 of 8760 h = 0.08219… → 0.0822; 123569.60 / 720 h = 171.624444… → 171.6244 CNY.
  CHECK(ri1.commitment->utilisation == Decimal::parse("0.0822"));
  CHECK(*ri1.commitment->effective_hourly == cny("171.6244"));
  // Break-even: 17000 / (3.06 × 8760 = 26805.60) = 0.634195… → 0.6342.
  CHECK(*ri1.commitment->break_even_utilisation == Decimal::parse("0.6342"));
  CHECK(*ri1.per_gpu_hour == cny("171.6244"));
  CHECK(*ri1.unit_price == Money::parse("1.940639 USD"));  // 17000 / 8760, 6 decimals

  // 3-year standard RI, no upfront, 1.20 USD an hour: 1.20 × 26280 = 31536 USD × 7.2688 =
  // 229228.8768 CNY; break-even 1.20 / 3.06 = 0.392156… → 0.3922.
  const auto& ri3 = q.line("aws/us-east-1/p3.2xlarge/reserved_3y/ri-standard-no-upfront");
  CHECK(ri3.commitment->term_cost == usd("31536"));
  CHECK(*ri3.total == cny("229228.8768"));
  CHECK(*ri3.commitment->break_even_utilisation == Decimal::parse("0.3922"));
  CHECK(ri3.commitment->hours_beyond_workload == 26280 - 720);

  // Google n1-standard-8 + 1 × V100, 1-year CUDs: (0.24 host + 1 × 1.562 GPU) = 1.802 USD an
  // hour × 8760 = 15785.52 USD × 7.2688 = 114741.787776 CNY; break-even against payg 2.86 an
  // hour: 1.802 / 2.86 = 0.630069… → 0.6301.
  const auto& cud =
      q.line("google/us-central1/n1-standard-8+1×V100-SXM2-16GB/reserved_1y/cud-no-upfront");
  CHECK(cud.commitment->row->id == 903);
  REQUIRE(cud.commitment->gpu_row);
  CHECK(cud.commitment->gpu_row->id == 904);
  CHECK(cud.commitment->hourly == usd("1.802"));
  CHECK(*cud.total == cny("114741.787776"));
  CHECK(*cud.commitment->break_even_utilisation == Decimal::parse("0.6301"));
  // The 3-year host CUD has no GPU CUD to go with it: no line.
  CHECK(line_with_id(
            q.result,
            "google/us-central1/n1-standard-8+1×V100-SXM2-16GB/reserved_3y/cud-no-upfront") ==
        nullptr);

  // p3.2xlarge had no reserved_3y price row (an unknown line); its commitment line replaces it.
  // The legacy reserved_1y price row's line stays beside the commitment line.
  CHECK(line_with_id(q.result, "aws/us-east-1/p3.2xlarge/reserved_3y") == nullptr);
  CHECK(line_with_id(q.result, "aws/us-east-1/p3.2xlarge/reserved_1y") != nullptr);
  // The ranking holds: every priced line before the unknown ones, cheapest first.
  for (std::size_t i = 1; i < q.result.lines.size(); ++i) {
    const auto& a = q.result.lines[i - 1];
    const auto& b = q.result.lines[i];
    CHECK(a.rank == i);
    if (a.priced && b.priced) CHECK(*a.total <= *b.total);
    CHECK((a.priced || !b.priced));
  }
}

TEST_CASE("a commitment covers the span in whole terms", "[quote][commitment]") {
  Workload w = quote_workload({"V100"});
  w.duration.hours = Decimal(10000);
  const Committed q(w);
  // 10000 h needs ceil(10000 / 8760) = 2 one-year terms: 2 × 17000 USD × 7.2688 = 247139.20 CNY;
  // 17520 − 10000 = 7520 hours beyond the workload; used 10000 / 17520 = 0.570776… → 0.5708.
  const auto& ri1 = q.line("aws/us-east-1/p3.2xlarge/reserved_1y/ri-standard-all-upfront");
  CHECK(ri1.commitment->terms == 2);
  CHECK(*ri1.total == cny("247139.2"));
  CHECK(ri1.commitment->hours_beyond_workload == 7520);
  CHECK(ri1.commitment->utilisation == Decimal::parse("0.5708"));
  bool says_longer = false;
  for (const auto& n : ri1.notes)
    says_longer |= n.find("longer than the workload") != std::string::npos;
  CHECK(says_longer);
}

TEST_CASE("commitment modes alone, and the explanation names the rows", "[quote][commitment]") {
  Workload w = quote_workload({"V100"});
  w.duration.hours = Decimal(720);
  w.modes = {"reserved_3y"};
  const Committed q(w);
  for (const auto& l : q.result.lines) {
    INFO(l.id);
    if (l.mode) CHECK(l.mode == BillingMode::reserved_3y);
  }
  const auto& ri3 = q.line("aws/us-east-1/p3.2xlarge/reserved_3y/ri-standard-no-upfront");
  CHECK(ri3.rank == 1);
  const std::string text = explain_line(q.result, ri3);
  CHECK_THAT(text, Catch::Contains("commitment #902 aws p3.2xlarge in us-east-1"));
  CHECK_THAT(text, Catch::Contains("test: commitment p3.2xlarge"));
  CHECK_THAT(text, Catch::Contains("× 26280 h = 31536"));
  CHECK_THAT(text, Catch::Contains("pay-as-you-go price (the break-even's) row #"));

  // With --top 1 the best line is still the commitment line.
  QuoteOptions top;
  top.top = 1;
  const Committed best(w, top);
  REQUIRE(best.result.lines.size() >= 1);
  CHECK(best.result.lines[0].id == "aws/us-east-1/p3.2xlarge/reserved_3y/ri-standard-no-upfront");
}
