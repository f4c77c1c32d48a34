// A page as a real browser draws it: Debian's Chromium, headless, takes a screenshot of an HTML
// file and dumps the DOM it built; the screenshot is decoded (libpng) and searched for what a
// reader would see. Used on `tailor report -o html` (report_test.cpp): its tables and the
// replay's plots (recommender/timeline_svg.cpp) must be on the screen, not only in the text.
// Chromium missing or failing is a test failure, never a skip.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace tailor::e2e {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
};

struct Screenshot {
  int width = 0, height = 0;
  std::vector<Rgb> pixels;  // row by row
  const Rgb& at(int x, int y) const { return pixels[std::size_t(y) * width + x]; }
};

// The window Chromium draws the page in: wide enough for the plots' 1000 px and the table.
inline constexpr int kWindowWidth = 1400, kWindowHeight = 2000;

// `chromium --headless=new --screenshot` of `page` into `png`, decoded. Throws
// std::runtime_error (with Chromium's stderr) when Chromium is missing, fails or times out.
Screenshot screenshot_in_chromium(const std::filesystem::path& page,
                                  const std::filesystem::path& png);

// `chromium --headless=new --dump-dom`: the DOM Chromium built from `page`, serialised.
std::string dom_in_chromium(const std::filesystem::path& page);

// What the screenshot shows, "" when it is there, else what is missing.
// Tables: a header band (the page's th background, #f3f3f3) with text in it, and under it
// at least `min_rows` row rules (the td's #ddd bottom border) with text between them.
std::string tables_drawn(const Screenshot& shot, int tables, int min_rows);
// Plots: panels found by their black axes (an x axis of at least 800 px with a y axis at its
// left end), `panels` of them each with a stroke of one of `series_colours` (#rrggbb,
// anti-aliased onto white) spanning at least a quarter of its width, and every colour drawn so
// in one panel or another (a strategy's line may lie under another's where they agree).
std::string plots_drawn(const Screenshot& shot, int panels,
                        const std::vector<std::string>& series_colours);

// `html` with every element from `open` to the next `close` cut out.
std::string without(const std::string& html, const std::string& open, const std::string& close);

// `tailor report --all -o html` of one replayed workload with one series, opened in Chromium
// from `dir`: its DOM has both tables and the plot's request paths of `strategies`, and the
// screenshot shows `tables` tables of at least one row each and the plot's two panels (cpu and
// memory) with a stroke of every strategy's colour; the same page without its plots fails the
// plot check and passes the table check, and without its tables the reverse (the checks can
// fail). Adds test failures.
void expect_report_page_drawn(const std::string& html, const std::filesystem::path& dir, int tables,
                              const std::vector<std::string>& strategies);

}  // namespace tailor::e2e
