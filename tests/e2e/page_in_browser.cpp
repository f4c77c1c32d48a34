#include "tests/e2e/page_in_browser.h"

#include <gtest/gtest.h>
#include <png.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "tests/e2e/e2e_cluster.h"

namespace tailor::e2e {
namespace {

namespace fs = std::filesystem;

// Chromium as root needs --no-sandbox; a profile of its own per call, so that runs in parallel
// never share one; a bounded time, so that a hung browser fails the test instead of the run.
std::string chromium_command(const fs::path& page, const std::string& action) {
  const fs::path profile = page.parent_path() / (page.stem().string() + ".chromium-profile");
  return "timeout 120 chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars "
         "--no-first-run --user-data-dir='" +
         profile.string() + "' " + action + " 'file://" + fs::absolute(page).string() + "'";
}

// Runs `command`, stdout to `out`, stderr kept for the message; throws unless it exits 0.
void run_chromium(const std::string& command, const fs::path& out) {
  if (std::system("command -v chromium >/dev/null 2>&1") != 0) {
    throw std::runtime_error(
        "chromium is not installed: the page check needs Debian's chromium (apt-get install "
        "chromium; scripts/install-deps.sh installs it)");
  }
  const fs::path err = out.string() + ".stderr";
  const int status =
      std::system((command + " >'" + out.string() + "' 2>'" + err.string() + "'").c_str());
  if (status != 0) {
    throw std::runtime_error("chromium failed (status " + std::to_string(status) +
                             ", 124 is a timeout): " + command + "\n" + read_text(err));
  }
}

Screenshot decode_png(const fs::path& png) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, png.c_str())) {
    throw std::runtime_error(png.string() + ": not a PNG: " + image.message);
  }
  image.format = PNG_FORMAT_RGB;
  Screenshot shot{int(image.width), int(image.height),
                  std::vector<Rgb>(std::size_t(image.width) * image.height)};
  if (!png_image_finish_read(&image, nullptr, shot.pixels.data(), 0, nullptr)) {
    throw std::runtime_error(png.string() + ": cannot decode: " + image.message);
  }
  return shot;
}

bool near(const Rgb& p, int grey, int tolerance) {
  return std::abs(p.r - grey) <= tolerance && std::abs(p.g - grey) <= tolerance &&
         std::abs(p.b - grey) <= tolerance;
}
bool text_ink(const Rgb& p) { return p.r < 120 && p.g < 120 && p.b < 120; }
// An axis: black, 1 px wide, drawn over two rows or columns of half grey.
bool axis_ink(const Rgb& p) {
  const int hi = std::max({p.r, p.g, p.b}), lo = std::min({p.r, p.g, p.b});
  return hi < 170 && hi - lo < 30;
}

// The colour `c` laid over white at some coverage (anti-aliasing of a thin stroke).
bool stroke_of(const Rgb& p, const Rgb& c) {
  const int cr[3] = {c.r, c.g, c.b}, pr[3] = {p.r, p.g, p.b};
  int k = 0;
  for (int j = 1; j < 3; ++j) {
    if (255 - cr[j] > 255 - cr[k]) k = j;
  }
  const double alpha = double(255 - pr[k]) / (255 - cr[k]);
  if (alpha < 0.35 || alpha > 1.15) return false;
  for (int j = 0; j < 3; ++j) {
    if (std::abs(pr[j] - (255 - alpha * (255 - cr[j]))) > 20) return false;
  }
  return true;
}

Rgb parse_colour(const std::string& hex) {
  const unsigned long v = std::stoul(hex.substr(1), nullptr, 16);
  return {std::uint8_t(v >> 16), std::uint8_t(v >> 8), std::uint8_t(v)};
}

struct Run {
  int x0, x1;  // [x0, x1)
};

// The longest run of pixels passing `is` on row y.
template <class Is>
Run longest_run(const Screenshot& s, int y, Is is) {
  Run best{0, 0};
  for (int x = 0; x < s.width;) {
    if (!is(s.at(x, y))) {
      ++x;
      continue;
    }
    int end = x;
    while (end < s.width && is(s.at(end, y))) ++end;
    if (end - x > best.x1 - best.x0) best = {x, end};
    x = end;
  }
  return best;
}

int ink_in(const Screenshot& s, int x0, int x1, int y0, int y1) {
  int n = 0;
  for (int y = std::max(0, y0); y < std::min(s.height, y1); ++y) {
    for (int x = std::max(0, x0); x < std::min(s.width, x1); ++x) n += text_ink(s.at(x, y));
  }
  return n;
}

// A rectangle of the screenshot: a table's header band, a plot's panel.
struct Box {
  int top, bottom, x0, x1;
};

// Header bands: rows where the th background (#f3f3f3) starts at one left edge and covers 200 px
// or more (glyphs break it into pieces on the rows of text), one band per table.
std::vector<Box> header_bands(const Screenshot& s) {
  std::vector<Box> bands;
  for (int y = 0; y < s.height; ++y) {
    int first = -1, last = -1, count = 0;
    for (int x = 0; x < s.width; ++x) {
      if (!near(s.at(x, y), 243, 2)) continue;
      if (first < 0) first = x;
      last = x, ++count;
    }
    if (count < 200) continue;
    if (!bands.empty() && y - bands.back().bottom <= 3 && std::abs(first - bands.back().x0) <= 3) {
      bands.back().bottom = y;
      bands.back().x1 = std::max(bands.back().x1, last + 1);
    } else {
      bands.push_back({y, y, first, last + 1});
    }
  }
  return bands;
}

// The row rules (#ddd) under a header band, as long as the next comes within a row's height.
std::vector<int> row_rules(const Screenshot& s, const Box& b) {
  std::vector<int> rules;
  int last = b.bottom;
  for (int y = b.bottom; y < s.height && y - last <= 60; ++y) {
    const Run r = longest_run(s, y, [](const Rgb& p) { return near(p, 221, 3); });
    if (std::abs(r.x0 - b.x0) <= 3 && r.x1 - r.x0 >= (b.x1 - b.x0) * 9 / 10) {
      if (rules.empty() || y - rules.back() > 2) rules.push_back(y);
      last = y;
    }
  }
  return rules;
}

// Plot panels: an x axis of 800 px or more, and a y axis rising 200 px or more from its left end.
std::vector<Box> plot_panels(const Screenshot& s) {
  std::vector<Box> panels;
  for (int y = 0; y < s.height; ++y) {
    const Run r = longest_run(s, y, axis_ink);
    if (r.x1 - r.x0 < 800) continue;
    if (!panels.empty() && y - panels.back().bottom <= 2) continue;  // the axis' second row
    int rise = 0;  // the y axis, past the 4 px tick of the axis' 0 on its left
    for (int x = r.x0; x <= r.x0 + 8 && x < s.width && rise < 200; ++x) {
      int up = 0;
      while (y - up >= 0 && axis_ink(s.at(x, y - up))) ++up;
      rise = std::max(rise, up);
    }
    if (rise >= 200) panels.push_back({y - rise + 1, y, r.x0, r.x1});
  }
  return panels;
}

}  // namespace

Screenshot screenshot_in_chromium(const fs::path& page, const fs::path& png) {
  fs::remove(png);
  run_chromium(chromium_command(page, "--screenshot='" + png.string() +
                                          "' --window-size=" + std::to_string(kWindowWidth) + "," +
                                          std::to_string(kWindowHeight)),
               png.string() + ".stdout");
  return decode_png(png);
}

std::string dom_in_chromium(const fs::path& page) {
  const fs::path out = page.string() + ".dom";
  run_chromium(chromium_command(page, "--dump-dom"), out);
  return read_text(out);
}

std::string tables_drawn(const Screenshot& shot, int tables, int min_rows) {
  const std::vector<Box> bands = header_bands(shot);
  std::ostringstream missing;
  int found = 0;
  for (const Box& b : bands) {
    const std::vector<int> rules = row_rules(shot, b);
    int rows_with_text = 0;
    for (std::size_t i = 1; i < rules.size(); ++i) {
      rows_with_text += ink_in(shot, b.x0, b.x1, rules[i - 1] + 1, rules[i]) >= 10;
    }
    const int header_ink = ink_in(shot, b.x0, b.x1, b.top, b.bottom);
    if (header_ink >= 20 && rows_with_text >= min_rows) {
      ++found;
    } else {
      missing << " header at y " << b.top << ".." << b.bottom << " x " << b.x0 << ".." << b.x1
              << ": " << header_ink << " px of text, " << rows_with_text << " rows with text;";
    }
  }
  if (found >= tables) return "";
  return "tables drawn: " + std::to_string(found) + " of " + std::to_string(tables) + " (" +
         std::to_string(bands.size()) + " header bands;" + missing.str() + ")";
}

std::string plots_drawn(const Screenshot& shot, int panels,
                        const std::vector<std::string>& series_colours) {
  const std::vector<Box> found = plot_panels(shot);
  std::ostringstream seen;
  int drawn = 0;
  std::vector<bool> colour_seen(series_colours.size(), false);
  for (const Box& p : found) {
    bool any = false;
    seen << " panel at y " << p.top << ".." << p.bottom << ":";
    for (std::size_t i = 0; i < series_colours.size(); ++i) {
      const Rgb c = parse_colour(series_colours[i]);
      int first = shot.width, last = -1, count = 0;
      for (int y = p.top; y < p.bottom - 1; ++y) {
        for (int x = p.x0 + 2; x < p.x1; ++x) {
          if (!stroke_of(shot.at(x, y), c)) continue;
          first = std::min(first, x), last = std::max(last, x), ++count;
        }
      }
      const bool stroke = count >= 50 && (last - first) * 4 >= p.x1 - p.x0;
      any = any || stroke;
      colour_seen[i] = colour_seen[i] || stroke;
      seen << " " << series_colours[i] << " " << count << " px over x " << first << ".." << last;
    }
    seen << ";";
    drawn += any;
  }
  const bool every_colour =
      std::find(colour_seen.begin(), colour_seen.end(), false) == colour_seen.end();
  if (drawn >= panels && every_colour) return "";
  return "plot panels with a series drawn: " + std::to_string(drawn) + " of " +
         std::to_string(panels) + (every_colour ? "" : ", not every series' colour drawn") + " (" +
         std::to_string(found.size()) + " pairs of axes;" + seen.str() + ")";
}

void expect_report_page_drawn(const std::string& html, const fs::path& dir, int tables,
                              const std::vector<std::string>& strategies) {
  // recommender/timeline_svg.cpp's colours, the i-th strategy's request in the i-th.
  const char* const kColours[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd"};
  std::vector<std::string> colours;
  for (std::size_t i = 0; i < strategies.size(); ++i) colours.push_back(kColours[i % 4]);
  fs::create_directories(dir);
  const fs::path page = dir / "report.html", no_plots = dir / "report-without-plots.html",
                 no_tables = dir / "report-without-tables.html";
  const std::string plots_cut = without(html, "<div class=\"plot\">", "</div>");
  const std::string tables_cut = without(html, "<table>", "</table>");
  ASSERT_NE(plots_cut, html) << "no plot on the page";
  ASSERT_NE(tables_cut, html) << "no table on the page";
  std::ofstream(page) << html;
  std::ofstream(no_plots) << plots_cut;
  std::ofstream(no_tables) << tables_cut;

  const std::string dom = dom_in_chromium(page);
  std::size_t table_count = 0;
  for (std::size_t at = 0; (at = dom.find("<table>", at)) != std::string::npos; ++at) {
    ++table_count;
  }
  EXPECT_EQ(table_count, std::size_t(tables)) << dom;
  for (const std::string& s : strategies) {
    EXPECT_NE(dom.find("<path class=\"request " + s + "\""), std::string::npos) << s << "\n" << dom;
  }

  const Screenshot shot = screenshot_in_chromium(page, dir / "report.png");
  ASSERT_EQ(shot.width, kWindowWidth);
  EXPECT_EQ(tables_drawn(shot, tables, 1), "") << "screenshot: " << (dir / "report.png");
  EXPECT_EQ(plots_drawn(shot, 2, colours), "") << "screenshot: " << (dir / "report.png");

  // The checks can fail: the page's plots cut out fail the plot check, its tables the table check.
  const Screenshot cut = screenshot_in_chromium(no_plots, dir / "report-without-plots.png");
  EXPECT_EQ(tables_drawn(cut, tables, 1), "") << (dir / "report-without-plots.png");
  EXPECT_NE(plots_drawn(cut, 1, colours), "") << (dir / "report-without-plots.png");
  const Screenshot bare = screenshot_in_chromium(no_tables, dir / "report-without-tables.png");
  EXPECT_NE(tables_drawn(bare, 1, 1), "") << (dir / "report-without-tables.png");
  EXPECT_EQ(plots_drawn(bare, 2, colours), "") << (dir / "report-without-tables.png");
}

std::string without(const std::string& html, const std::string& open, const std::string& close) {
  std::string out = html;
  for (std::size_t at; (at = out.find(open)) != std::string::npos;) {
    const std::size_t end = out.find(close, at);
    if (end == std::string::npos) break;
    out.erase(at, end + close.size() - at);
  }
  return out;
}

}  // namespace tailor::e2e
