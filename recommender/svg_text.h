#pragma once

#include <string>

namespace tailor::recommender::svg {

// A coordinate or label: four significant digits keep the files small and diffable.
std::string number(double v);
// Text escaped for an SVG text node or a quoted attribute.
std::string xml_text(const std::string& s);

}  // namespace tailor::recommender::svg
