// Amounts and instants as providers' exports write them, read exactly.
#include <catch2/catch.hpp>

#include "reconcile/invoice.hpp"

using gpubill::Calendar;
using gpubill::Decimal;
using gpubill::format_instant;
using gpubill::reconcile_detail::Meter;
using gpubill::reconcile_detail::meter_from_text;
using gpubill::reconcile_detail::parse_export_amount;
using gpubill::reconcile_detail::parse_export_instant;

namespace {
std::string amount(const char* text) {
  const auto d = parse_export_amount(text);
  return d ? d->to_string() : "none";
}
std::string instant(const char* text, const char* zone = "UTC") {
  const auto t = parse_export_instant(text, Calendar(zone));
  return t ? format_instant(*t) : "none";
}
}  // namespace

TEST_CASE("export amounts: decimals, exponents and FLOAT64 text, exactly", "[reconcile]") {
  CHECK(amount("3.06") == "3.06");
  CHECK(amount("-0.5") == "-0.5");
  CHECK(amount("0.0136986") == "0.0136986");
  CHECK(amount("8E-2") == "0.08");
  CHECK(amount("1.5e+3") == "1500");
  CHECK(amount("2.5E-13") == "0");  // 0.00000000000025: half-even to 12 decimals
  CHECK(amount("3.5E-12") == "0.000000000004");
  CHECK(amount("0.12345678901234567") == "0.123456789012");  // a FLOAT64 printed in full
  CHECK(amount("0.1234567890125") == "0.123456789012");      // half-even: 2 stays
  CHECK(amount("0.1234567890135") == "0.123456789014");
  CHECK(amount("") == "none");
  CHECK(amount("1,5") == "none");
  CHECK(amount("15.O9") == "none");
  CHECK(amount("1e") == "none");
  CHECK(amount("--1") == "none");
}

TEST_CASE("export instants: RFC 3339, UTC suffix, and local times of the billing zone",
          "[reconcile]") {
  CHECK(instant("2018-01-10T10:00:00Z") == "2018-01-10T10:00:00Z");
  CHECK(instant("2018-01-10T10:00:00.000Z") == "2018-01-10T10:00:00Z");
  CHECK(instant("2019-06-03T10:30:00+08:00") == "2019-06-03T02:30:00Z");
  CHECK(instant("2019-06-03 10:00:00 UTC") == "2019-06-03T10:00:00Z");
  CHECK(instant("2019-06-03 10:30:00", "Asia/Shanghai") == "2019-06-03T02:30:00Z");
  CHECK(instant("2019-06-03T10:30:00", "Asia/Shanghai") == "2019-06-03T02:30:00Z");
  CHECK(instant("2019-02-30T04:00:00Z") == "none");
  CHECK(instant("2019-06-03T10:00:00.5Z") == "none");
  CHECK(instant("2019-06-03") == "none");
  CHECK(instant("2019-06-03T24:00:00Z") == "none");
  CHECK(instant("2019-06-03T10:00:00 CST") == "none");
}

TEST_CASE("export meters from SKU and usage-type text", "[reconcile]") {
  CHECK(meter_from_text("Nvidia Tesla V100 GPU running in Americas") == Meter::gpu);
  CHECK(meter_from_text("N1 Predefined Instance Core running in Americas") == Meter::compute);
  CHECK(meter_from_text("USE1-EBS:VolumeUsage.gp2") == Meter::disk);
  CHECK(meter_from_text("USE1-DataTransfer-Out-Bytes") == Meter::bandwidth);
  CHECK(meter_from_text("Storage PD Capacity") == Meter::disk);
  CHECK(meter_from_text("Network Internet Egress from Americas to Americas") == Meter::bandwidth);
  CHECK(meter_from_text("Support fee") == Meter::other);
}
