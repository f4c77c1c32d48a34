#pragma once

#include <string>

namespace tailor::recommender::svg {

// A coordinate or label: four significant digits keep the files small and diffable.
std::string number(double v);
// Text escaped for an SVG or HTML text node or a quoted attribute (either quote).
std::string xml_text(const std::string& s);

}  // namespace tailor::recommender::svg
