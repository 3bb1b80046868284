/* label: the date and byte labels the charts and pages print, and the clock. */
#include <check.h>
#include <string.h>

#include "label.h"

static const struct {
  const char *iso, *want;
} k_dates[] = {
    {"2026-11-21T08:52:25Z", "2026-11-21 08:52 UTC"},
    {"2026-11-21T08:52", "2026-11-21 08:52 UTC"},
    {"2026-11-21", "2026-11-21"},       /* too short: as it is */
    {"2026-11-21 08:52:25", "2026-11-21 08:52:25"}, /* no T: as it is */
    {"", "unknown date"},
};

START_TEST(test_label_date_forms) {
  char buf[48];
  kg_date_label(k_dates[_i].iso, buf, sizeof buf);
  ck_assert_str_eq(buf, k_dates[_i].want);
}
END_TEST

static const struct {
  double bytes;
  const char *want;
} k_bytes[] = {
    {0, "0 B"},           {1023, "1023 B"},        {1024, "1 KiB"},      {1536, "1.5 KiB"},
    {50331648, "48 MiB"}, {17179869184.0, "16 GiB"}, {1125899906842624.0, "1024 TiB"},
};

START_TEST(test_label_bytes_units) {
  char buf[48];
  kg_bytes_label(k_bytes[_i].bytes, buf, sizeof buf);
  ck_assert_str_eq(buf, k_bytes[_i].want);
}
END_TEST

START_TEST(test_label_bytes_short_buffer) {
  char buf[4] = "xxx";
  kg_bytes_label(1536, buf, sizeof buf);
  ck_assert_str_eq(buf, "1.5"); /* cut, still terminated */
}
END_TEST

START_TEST(test_label_now_monotonic) {
  double a = kg_now_s(), b = kg_now_s();
  ck_assert(a > 0 && b >= a);
}
END_TEST

Suite *make_label_suite(void) {
  Suite *s = suite_create("label");
  TCase *core = tcase_create("Core"), *limits = tcase_create("Limits");
  tcase_add_loop_test(core, test_label_date_forms, 0, (int)(sizeof k_dates / sizeof k_dates[0]));
  tcase_add_loop_test(core, test_label_bytes_units, 0, (int)(sizeof k_bytes / sizeof k_bytes[0]));
  tcase_add_test(core, test_label_now_monotonic);
  tcase_add_test(limits, test_label_bytes_short_buffer);
  suite_add_tcase(s, core);
  suite_add_tcase(s, limits);
  return s;
}
