#include "routing/draw/Svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <iterator>

namespace ibsm::draw {
namespace {

// ColorBrewer's sequential Blues: light for quiet links, dark for the
// busiest; red stays free for health marks.
constexpr std::array<const char*, kLoadBins> kBlues = {"#c6dbef", "#9ecae1", "#6baed6", "#4292c6",
                                                       "#2171b5", "#08519c", "#08306b", "#041c40"};
constexpr const char* kRed = "#d62728";
// The legend's width: a small fabric's picture is widened to show it whole.
constexpr double kLegendWidth = 1000.0;

std::size_t utf8Length(unsigned char lead) {
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  return 0;
}

void appendStyle(std::string& out) {
  out += "<style>\n";
  out += ".switch rect{fill:#fff;stroke:#333;stroke-width:1}\n";
  out += ".hosts rect{fill:#eee;stroke:#999;stroke-width:0.8}\n";
  out += ".hosts text{fill:#555;font-size:9px}\n";
  out += "g.unhealthy rect{stroke:#d62728;stroke-width:2;stroke-dasharray:4 2}\n";
  out += "line.link{stroke-linecap:round;stroke-opacity:0.6}\n";
  out += ".noload{stroke:#888}\n.unused{stroke:#ddd}\n";
  for (int i = 0; i < kLoadBins; ++i)
    fmt::format_to(std::back_inserter(out), ".l{}{{stroke:{}}}\n", i, kBlues[i]);
  fmt::format_to(
      std::back_inserter(out),
      "line.unhealthy{{stroke:{};stroke-dasharray:6 4;stroke-width:3px;stroke-opacity:1}}\n", kRed);
  out += "</style>\n";
}

// Title, then the load scale: what each colour means in routes per link.
void appendLegend(std::string& out, const Layout& l, std::string_view title) {
  auto o = std::back_inserter(out);
  std::uint64_t hosts = 0, cables = 0;
  for (const auto& s : l.switches) hosts += s.hosts;
  for (const auto& b : l.bundles) cables += b.cables;
  fmt::format_to(o,
                 "<g id=\"legend\">\n<text x=\"40\" y=\"28\" font-size=\"16\">{}</text>\n"
                 "<text x=\"40\" y=\"46\" font-size=\"11\">{}</text>\n",
                 xmlText(fmt::format("{}: {} switches, {} cables between them, {} hosts", title,
                                     l.switches.size(), cables, hosts)),
                 xmlText(l.shape));
  if (!l.hasLoads) {
    fmt::format_to(o,
                   "<text x=\"40\" y=\"66\">no route report given: links uncoloured; "
                   "line width grows with the cables bundled</text>\n</g>\n");
    return;
  }
  fmt::format_to(o,
                 "<text x=\"40\" y=\"66\">routes per link (busiest direction of the busiest "
                 "cable; line width grows with the cables bundled):</text>\n");
  double x = 40;
  for (int i = 0; i < kLoadBins; ++i, x += 74) {
    const std::uint64_t lo = l.maxRoutes * static_cast<std::uint64_t>(i) / kLoadBins + 1;
    const std::uint64_t hi = l.maxRoutes * static_cast<std::uint64_t>(i + 1) / kLoadBins;
    fmt::format_to(o,
                   "<rect class=\"scale\" x=\"{:.0f}\" y=\"74\" width=\"70\" height=\"8\" "
                   "fill=\"{}\"/><text x=\"{:.0f}\" y=\"94\">{}</text>\n",
                   x, kBlues[i], x,
                   hi < lo    ? std::string("-")  // fewer routes than colours: a slice of none
                   : lo == hi ? fmt::format("{}", hi)
                              : fmt::format("{}-{}", lo, hi));
  }
  fmt::format_to(o,
                 "<rect x=\"{:.0f}\" y=\"74\" width=\"40\" height=\"8\" fill=\"#ddd\"/>"
                 "<text x=\"{:.0f}\" y=\"94\">unused</text>\n"
                 "<line x1=\"{:.0f}\" y1=\"78\" x2=\"{:.0f}\" y2=\"78\" stroke=\"{}\" "
                 "stroke-width=\"2\" stroke-dasharray=\"6 4\"/><text x=\"{:.0f}\" y=\"94\">"
                 "unhealthy (hover for why)</text>\n</g>\n",
                 x + 10, x + 10, x + 70, x + 120, kRed, x + 70);
}

void appendLink(std::string& out, const Layout& l, const Bundle& b) {
  const SwitchBox& a = l.switches[b.a];
  const SwitchBox& z = l.switches[b.b];
  std::string cls = "noload";
  if (l.hasLoads) {
    const int bin = loadBin(b.maxRoutes, l.maxRoutes);
    cls = bin < 0 ? "unused" : fmt::format("l{}", bin);
  }
  if (!b.marks.empty()) cls += " unhealthy";
  std::string tip =
      fmt::format("{} - {}: {} cable{}", a.name, z.name, b.cables, b.cables == 1 ? "" : "s");
  if (l.hasLoads) tip += fmt::format(", {} routes at most one way", b.maxRoutes);
  for (const auto& m : b.marks) tip += "\n" + m;
  const double width = std::min(6.0, 1.0 + 0.8 * static_cast<double>(b.cables - 1));
  fmt::format_to(
      std::back_inserter(out),
      "<line class=\"link {}\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
      "stroke-width=\"{:.1f}\" data-cables=\"{}\" data-routes=\"{}\"><title>{}</title></line>\n",
      cls, a.at.x, a.at.y, z.at.x, z.at.y, width, b.cables, b.maxRoutes, xmlText(tip));
}

// A box centred on `at` with its label, written upwards when the box is upright.
void appendBox(std::string& out, Point at, double w, double h, std::string_view label) {
  auto o = std::back_inserter(out);
  fmt::format_to(o, "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" rx=\"2\"/>",
                 at.x - w / 2, at.y - h / 2, w, h);
  if (w >= h)
    fmt::format_to(o, "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", at.x,
                   at.y + 3.5, label);
  else
    fmt::format_to(o,
                   "<text transform=\"translate({:.1f},{:.1f}) rotate(-90)\" "
                   "text-anchor=\"middle\">{}</text>",
                   at.x + 3.5, at.y, label);
}

void appendSwitch(std::string& out, const Layout& l, const SwitchBox& s) {
  const std::string name = xmlText(s.name);
  std::string tip = fmt::format("{} ({}), {} hosts", s.name, s.guid, s.hosts);
  for (const auto& m : s.marks) tip += "\n" + m;
  fmt::format_to(std::back_inserter(out),
                 "<g class=\"switch{}\" data-name=\"{}\" data-guid=\"{}\" data-tier=\"{}\" "
                 "data-x=\"{:.1f}\" data-y=\"{:.1f}\"><title>{}</title>",
                 s.marks.empty() ? "" : " unhealthy", name, s.guid, s.tier, s.at.x, s.at.y,
                 xmlText(tip));
  appendBox(out, s.at, l.boxWidth, l.boxHeight, name);
  out += "</g>\n";
  if (s.hosts == 0) return;
  const std::string hosts = fmt::format("{} host{}", s.hosts, s.hosts == 1 ? "" : "s");
  std::string hostTip = fmt::format("{} on {}", hosts, s.name);
  for (const auto& m : s.hostMarks) hostTip += "\n" + m;
  fmt::format_to(std::back_inserter(out),
                 "<g class=\"hosts{}\" data-switch=\"{}\" data-hosts=\"{}\"><title>{}</title>",
                 s.hostMarks.empty() ? "" : " unhealthy", name, s.hosts, xmlText(hostTip));
  appendBox(out, s.hostsAt, l.hostsWidth, l.hostsHeight, hosts);
  out += "</g>\n";
}

}  // namespace

int loadBin(std::uint64_t routes, std::uint64_t max) {
  if (routes == 0 || max == 0) return -1;
  return static_cast<int>(std::min<std::uint64_t>(kLoadBins - 1, (routes * kLoadBins - 1) / max));
}

std::string xmlText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const std::size_t n = utf8Length(c);
      bool valid = n > 0 && i + n <= text.size();
      for (std::size_t k = 1; valid && k < n; ++k)
        valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
      if (!valid) {
        out += '?';
        continue;
      }
      out.append(text.substr(i, n));
      i += n - 1;
    } else if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '"') {
      out += "&quot;";
    } else if (c == '\n') {
      out += "&#10;";  // a tooltip's line break, kept inside attributes too
    } else if (c < 0x20) {
      out += '?';
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string renderSvg(const Layout& layout, std::string_view title) {
  std::string out;
  out.reserve(256 * (layout.bundles.size() + 2 * layout.switches.size()) + 4096);
  fmt::format_to(std::back_inserter(out),
                 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
                 "viewBox=\"0 0 {0:.0f} {1:.0f}\" font-family=\"sans-serif\" font-size=\"10\">\n"
                 "<title>{2}</title>\n",
                 std::max(layout.width, kLegendWidth), layout.height, xmlText(title));
  appendStyle(out);
  out += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
  appendLegend(out, layout, title);
  out += "<g id=\"links\">\n";
  for (const Bundle& b : layout.bundles) appendLink(out, layout, b);
  out += "</g>\n<g id=\"switches\">\n";
  for (const SwitchBox& s : layout.switches) appendSwitch(out, layout, s);
  out += "</g>\n</svg>\n";
  return out;
}

}  // namespace ibsm::draw
