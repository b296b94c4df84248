# How long the longest Catch2 test cases take (seconds on an idle 2-core machine; the figures
# of docs/benchmarks.md, "the suite's schedule"), read by CTest after it has discovered them.
# CTest starts the costliest tests first, but a new build directory has no timings yet
# (Testing/Temporary/CTestCostData.txt): without these, the slowest tests would start in
# declaration order and the last of them run alone on one core at the end of the suite.
# (The tests added with add_test have their COST in CMakeLists.txt.) A name that is not a
# test changes nothing.
foreach(part 1 2 3 4)
  set_tests_properties(
    "the bad-input corpus, part ${part} of 4: exact errors and an unchanged database"
    PROPERTIES COST 11)
endforeach()
set_tests_properties("Replaying a log in two parts equals replaying it whole, at every split"
                     PROPERTIES COST 7)
set_tests_properties("postgres:a log replayed into PostgreSQL in two parts equals the log replayed whole"
                     PROPERTIES COST 5)
foreach(name
    "postgres:a rebuild and a void on PostgreSQL give what they give on SQLite"
    "postgres:init and quote on a PostgreSQL URL print what they print on an SQLite file"
    "a replay killed at 20 points leaves all of it or none of it"
    "quote equals replay: random workloads on every provider's pay-as-you-go and spot"
    "metering edges: every provider and mode against its policy row, and quote = replay"
    "postgres:the sample logs replayed into PostgreSQL write every row they write into SQLite"
    "postgres:logs replayed twice into PostgreSQL apply each event once and spend no seq")
  set_tests_properties("${name}" PROPERTIES COST 4)
endforeach()
