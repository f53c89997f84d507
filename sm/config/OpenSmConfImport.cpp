// The mapping of opensm.conf onto ibsm.toml. OpenSM reads the file line by
// line: '#' cuts a comment, the first word is the option, the rest (trimmed,
// one pair of quotes dropped) its value, and the last line of an option
// wins; numbers are C's strtoul with base 0 (0x hex, leading 0 octal),
// booleans TRUE or anything else, and "(null)" unsets a string.
#include "sm/config/OpenSmConfImport.h"

#include <fmt/format.h>
#include <ibsm/QosOptions.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>

#include "sm/config/OpenSmOptionNotes.h"

namespace ibsm::sm::config {
namespace {

struct Option {
  std::string value;
  std::size_t line{0};
};

// One line of the output: an ibsm key (or a commented one) and where it came from.
struct Key {
  std::string name{};     // "priority"
  std::string literal{};  // TOML value
  std::string source{};   // "sm_priority 7 (line 180)"
  std::string note{};     // why it is commented, or what differs; empty: nothing
  bool commented{false};
};

constexpr std::string_view kSections[] = {"sm",     "routing",    "mad", "sa",
                                          "health", "partitions", "qos", "log"};

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n\v\f");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n\v\f") - first + 1);
}

std::string tomlString(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// C's strtoull(text, &end, 0) over the whole text.
std::optional<std::uint64_t> parseCNumber(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  } else if (text.size() > 1 && text[0] == '0') {
    base = 8;
  }
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v, base);
  if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

class Mapper {
 public:
  Mapper(std::map<std::string, Option> options, std::string file, std::vector<ImportNote> notes)
      : options_(std::move(options)), file_(std::move(file)), warnings_(std::move(notes)) {}

  Result<ImportedConfig> run();

 private:
  const Option* find(std::string_view name) const {
    const auto it = options_.find(std::string(name));
    return it == options_.end() ? nullptr : &it->second;
  }
  std::string source(std::string_view name, const Option& o) const {
    return fmt::format("{} {} (line {})", name, o.value, o.line);
  }
  Error bad(const Option& o, std::string_view name, std::string_view what) const {
    return Error::at(file_, o.line,
                     fmt::format("{}: expected {}, found '{}'", name, what, o.value));
  }
  void put(std::string_view section, Key key, std::string_view from) {
    keys_[std::string(section)].push_back(std::move(key));
    done_.emplace_back(from);
  }
  Result<void> number(std::string_view name, std::string_view section, std::string_view key,
                      std::uint64_t lo, std::uint64_t hi);
  Result<void> hex64(std::string_view name, std::string_view section, std::string_view key);
  Result<void> path(std::string_view name, std::string_view section, std::string_view key,
                    std::string_view openSmDefault, std::string_view whyNotDefault);
  Result<void> strictness();
  Result<void> subnetTimeout();
  Result<void> portGuid();
  Result<void> window();
  Result<void> pollingPace();
  Result<void> engines();
  Result<void> perfmgr();
  Result<void> logLevel();
  Result<void> mKey();
  Result<void> mKeyField(std::string_view name, std::string_view key, std::uint64_t hi,
                         bool openSmProtected);
  Result<void> qosEnabled();
  Result<void> qosSet(std::string_view prefix);
  Result<void> qosNumber(std::string_view option, std::string_view key, std::int64_t lo,
                         std::int64_t hi, std::int64_t unset);
  Result<void> qosTable(std::string_view option, std::string_view key, bool sl2vl);
  Result<void> mapOptions();
  void writeKeys(ImportedConfig& out) const;
  void writeUnmapped(ImportedConfig& out) const;

  std::map<std::string, Option> options_;
  std::string file_;
  std::map<std::string, std::vector<Key>> keys_;
  std::vector<std::string> done_;  // OpenSM options used for a key
  std::vector<ImportNote> warnings_;
};

Result<void> Mapper::number(std::string_view name, std::string_view section, std::string_view key,
                            std::uint64_t lo, std::uint64_t hi) {
  const Option* o = find(name);
  if (!o) return {};
  const auto n = parseCNumber(o->value);
  if (!n || *n < lo || *n > hi)
    return std::unexpected(
        bad(*o, name, fmt::format("a number from {} to {} (ibsm's {}.{})", lo, hi, section, key)));
  put(section, Key{std::string(key), std::to_string(*n), source(name, *o), {}, false}, name);
  return {};
}

Result<void> Mapper::hex64(std::string_view name, std::string_view section, std::string_view key) {
  const Option* o = find(name);
  if (!o) return {};
  const auto n = parseCNumber(o->value);
  if (!n) return std::unexpected(bad(*o, name, "a 64-bit number such as 0x0000000000000001"));
  put(section, Key{std::string(key), tomlString(fmt::format("0x{:016x}", *n)), source(name, *o)},
      name);
  return {};
}

// A file name; "(null)" leaves the key out, OpenSM's own default path is
// written commented (OpenSM reads it only if it exists, ibsm insists).
Result<void> Mapper::path(std::string_view name, std::string_view section, std::string_view key,
                          std::string_view openSmDefault, std::string_view whyNotDefault) {
  const Option* o = find(name);
  if (!o) return {};
  if (o->value == "(null)" || o->value.empty()) {
    put(section, Key{std::string(key), "\"\"", source(name, *o), "unset in OpenSM", true}, name);
    return {};
  }
  const bool isDefault = !openSmDefault.empty() && o->value == openSmDefault;
  put(section,
      Key{std::string(key), tomlString(o->value), source(name, *o),
          isDefault ? std::string(whyNotDefault) : std::string{}, isDefault},
      name);
  return {};
}

// OpenSM reads past what it cannot use in a partitions file, where ibsm
// refuses it: said next to the file, with the key that reads as OpenSM does.
Result<void> Mapper::strictness() {
  const Option* o = find("partition_config_file");
  if (!o || o->value == "(null)" || o->value.empty()) return {};
  put("partitions",
      Key{"strict", "false", source("partition_config_file", *o),
          "OpenSM reads past unknown flags and values it cannot take in a partitions file; ibsm "
          "refuses such a file, naming file:line, unless this is false (then it warns about each)",
          true},
      "partition_config_file");
  return {};
}

// OpenSM writes subnet_timeout into PortInfo and also answers PathRecords
// with it as PacketLifeTime: two keys in ibsm.
Result<void> Mapper::subnetTimeout() {
  const Option* o = find("subnet_timeout");
  if (!o) return {};
  const auto n = parseCNumber(o->value);
  if (!n || *n > 31)
    return std::unexpected(
        bad(*o, "subnet_timeout", "a number from 0 to 31 (ibsm's sa.subnet_timeout)"));
  put("sa", Key{"subnet_timeout", std::to_string(*n), source("subnet_timeout", *o)},
      "subnet_timeout");
  put("sa",
      Key{"packet_life_time", std::to_string(*n), source("subnet_timeout", *o),
          "OpenSM answers PathRecords with its subnet_timeout as PacketLifeTime"},
      "subnet_timeout");
  return {};
}

Result<void> Mapper::portGuid() {
  const Option* o = find("guid");
  if (!o) return {};
  const auto n = parseCNumber(o->value);
  if (!n) return std::unexpected(bad(*o, "guid", "a port GUID such as 0x0002c90300a1b2c3"));
  if (*n == 0) {
    put("sm",
        Key{"port_guid", "\"\"", source("guid", *o), "0: the first active port, ibsm's default too",
            true},
        "guid");
    return {};
  }
  put("sm", Key{"port_guid", tomlString(fmt::format("0x{:016x}", *n)), source("guid", *o)}, "guid");
  return {};
}

// OpenSM's default of 4 SMPs on the wire makes a bring-up about 2.5 times
// slower than 64 (measured on ibsim); only a value the operator chose is kept.
Result<void> Mapper::window() {
  const Option* o = find("max_wire_smps");
  if (!o) return {};
  const auto n = parseCNumber(o->value);
  if (!n || *n < 1 || *n > 1024)
    return std::unexpected(bad(*o, "max_wire_smps", "a number from 1 to 1024 (ibsm's mad.window)"));
  put("mad",
      Key{"window", std::to_string(*n), source("max_wire_smps", *o),
          *n == 4 ? "OpenSM's default, slow: ibsm's default (32) keeps more SMPs in flight" : "",
          *n == 4},
      "max_wire_smps");
  return {};
}

// sminfo_polling_timeout and polling_retry_number, a pair: the detection
// time of a dead master is their product. At OpenSM's defaults (10000 ms x 4:
// 40 s) both are written commented, as the slow window is, so ibsm's own
// pace (1000 ms x 3) applies; any other pair is the operator's and kept.
Result<void> Mapper::pollingPace() {
  constexpr std::uint64_t kOpenSmTimeout = 10000, kOpenSmRetries = 4;
  const Option* t = find("sminfo_polling_timeout");
  const Option* r = find("polling_retry_number");
  const auto timeout = t ? parseCNumber(t->value) : std::optional<std::uint64_t>{kOpenSmTimeout};
  if (!timeout || *timeout < 100 || *timeout > 3600000)
    return std::unexpected(bad(*t, "sminfo_polling_timeout",
                               "a number from 100 to 3600000 (ibsm's sm.polling_timeout_ms)"));
  const auto retries = r ? parseCNumber(r->value) : std::optional<std::uint64_t>{kOpenSmRetries};
  if (!retries || *retries < 1 || *retries > 100)
    return std::unexpected(
        bad(*r, "polling_retry_number", "a number from 1 to 100 (ibsm's sm.polling_retries)"));
  const bool slow = *timeout == kOpenSmTimeout && *retries == kOpenSmRetries;
  const std::string note =
      slow ? "OpenSM's default pace, 40 s to find a dead master: ibsm's defaults (1000 ms x 3) "
             "find one in under 4 s"
           : "";
  if (t)
    put("sm",
        Key{"polling_timeout_ms", std::to_string(*timeout), source("sminfo_polling_timeout", *t),
            note, slow},
        "sminfo_polling_timeout");
  if (r)
    put("sm",
        Key{"polling_retries", std::to_string(*retries), source("polling_retry_number", *r), note,
            slow},
        "polling_retry_number");
  return {};
}

// "ftree,updn": tried in order; unless "no_fallback" is listed OpenSM ends
// with minhop, so the list does here too. Engines ibsm lacks are named.
Result<void> Mapper::engines() {
  const Option* o = find("routing_engine");
  if (!o) return {};
  if (o->value == "(null)" || o->value.empty() || o->value == "null") {
    put("routing",
        Key{"engine", "[\"minhop\"]", source("routing_engine", *o),
            "OpenSM's default is minhop; ibsm's default, auto, picks the engine for the topology",
            true},
        "routing_engine");
    return {};
  }
  constexpr std::string_view kIbsm[] = {"minhop", "updn", "ftree"};
  constexpr std::string_view kOpenSm[] = {"minhop", "updn",       "dnup", "file",   "ftree", "lash",
                                          "dor",    "torus-2QoS", "nue",  "dfsssp", "sssp"};
  std::vector<std::string> kept;
  std::vector<std::string> lacked;
  bool fallback = true;
  std::string_view rest = o->value;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view name = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (name == "no_fallback") {
      fallback = false;
    } else if (std::ranges::find(kIbsm, name) != std::end(kIbsm)) {
      if (std::ranges::find(kept, name) == kept.end()) kept.emplace_back(name);
    } else if (std::ranges::find(kOpenSm, name) != std::end(kOpenSm)) {
      lacked.emplace_back(name);
    } else {
      return std::unexpected(bad(*o, "routing_engine",
                                 "OpenSM engine names separated by ',' (minhop, updn, dnup, file, "
                                 "ftree, lash, dor, torus-2QoS, nue, dfsssp, sssp, no_fallback)"));
    }
  }
  if (fallback && std::ranges::find(kept, "minhop") == kept.end()) kept.emplace_back("minhop");
  std::string note;
  if (!lacked.empty()) {
    std::string names;
    for (const auto& l : lacked) names += (names.empty() ? "" : ", ") + l;
    note = fmt::format("ibsm has no {} engine{}: left out", names, lacked.size() > 1 ? "s" : "");
    warnings_.push_back({o->line, fmt::format("routing_engine: {}", note)});
  }
  if (kept.empty()) {
    put("routing",
        Key{"engine", "[\"auto\"]", source("routing_engine", *o),
            note + "; no engine left and no_fallback: ibsm's default, auto, picks one", true},
        "routing_engine");
    return {};
  }
  std::string list = "[";
  for (const auto& k : kept) list += (list.size() > 1 ? ", " : "") + tomlString(k);
  put("routing", Key{"engine", list + "]", source("routing_engine", *o), note}, "routing_engine");
  return {};
}

// OpenSM's perfmgr is off by default; ibsm's counter sweep is on. The
// import keeps what OpenSM did: off, or on at perfmgr_sweep_time_s.
Result<void> Mapper::perfmgr() {
  const Option* on = find("perfmgr");
  const Option* every = find("perfmgr_sweep_time_s");
  if (!on && !every) return {};
  std::uint64_t seconds = 180;  // OpenSM's default sweep time
  if (every) {
    const auto n = parseCNumber(every->value);
    if (!n || *n < 1 || *n > 86400)
      return std::unexpected(bad(*every, "perfmgr_sweep_time_s",
                                 "seconds from 1 to 86400 (ibsm's health.counter_interval)"));
    seconds = *n;
  }
  bool enabled = false;
  if (on) {
    if (on->value != "TRUE" && on->value != "FALSE")
      return std::unexpected(bad(*on, "perfmgr", "TRUE or FALSE"));
    enabled = on->value == "TRUE";
  }
  const std::string from = on ? source("perfmgr", *on) : "perfmgr FALSE (OpenSM's default)";
  put("health",
      Key{"counter_interval", enabled ? std::to_string(seconds) : "0",
          every ? from + ", " + source("perfmgr_sweep_time_s", *every) : from,
          enabled ? "" : "OpenSM's perfmgr was off; ibsm's default reads counters every 180 s"},
      "perfmgr");
  return {};
}

// log_flags: 0x01 error, 0x02 info, 0x04 verbose, 0x08 debug, 0x10 funcs,
// 0x20 frames (MADs), 0x40 routing, 0x80 sys. ibsm has one level.
Result<void> Mapper::logLevel() {
  const Option* o = find("log_flags");
  if (!o) return {};
  const auto n = parseCNumber(o->value);
  if (!n || *n > 0xff) return std::unexpected(bad(*o, "log_flags", "a bit mask from 0x00 to 0xff"));
  const std::string_view level = (*n & 0x30)   ? "trace"
                                 : (*n & 0x4c) ? "debug"
                                 : (*n & 0x02) ? "info"
                                 : (*n & 0x81) ? "error"
                                               : "off";
  put("log",
      Key{"level", tomlString(level), source("log_flags", *o),
          "ibsm has one level: the most verbose of the flags set"},
      "log_flags");
  return {};
}

// OpenSM's m_key 0 (its default) sets no M_Key, where ibsm's default protects
// every port with a key derived from a secret: the import says so and leaves
// the choice to the operator. A key OpenSM set is kept, as one key for every
// port; its protection level and lease follow it (with m_key 0 they did
// nothing in OpenSM, so ibsm's defaults stand, commented).
Result<void> Mapper::mKey() {
  const Option* o = find("m_key");
  bool openSmProtected = false;
  if (o) {
    const auto n = parseCNumber(o->value);
    if (!n) return std::unexpected(bad(*o, "m_key", "a 64-bit number such as 0x00000000000000ff"));
    openSmProtected = *n != 0;
    put("sm",
        Key{"m_key", openSmProtected ? tomlString(fmt::format("0x{:016x}", *n)) : "0",
            source("m_key", *o),
            openSmProtected
                ? "one key for every port, as OpenSM; leave it out (and keep the secret file "
                  "safe) for a key per port derived from sm.m_key_secret_file"
                : "OpenSM sets no M_Key; ibsm protects every port with a key derived from a "
                  "secret unless m_key is 0: uncomment to leave ports unprotected as OpenSM did",
            !openSmProtected},
        "m_key");
  }
  if (auto r = mKeyField("m_key_protection_level", "m_key_protect", 3, openSmProtected); !r)
    return r;
  return mKeyField("m_key_lease_period", "m_key_lease", 65535, openSmProtected);
}

Result<void> Mapper::mKeyField(std::string_view name, std::string_view key, std::uint64_t hi,
                               bool openSmProtected) {
  const Option* o = find(name);
  if (!o) return {};
  const auto n = parseCNumber(o->value);
  if (!n || *n > hi)
    return std::unexpected(
        bad(*o, name, fmt::format("a number from 0 to {} (ibsm's sm.{})", hi, key)));
  put("sm",
      Key{std::string(key), std::to_string(*n), source(name, *o),
          openSmProtected ? "" : "no effect in OpenSM without an m_key: ibsm's default applies",
          !openSmProtected},
      name);
  return {};
}

// OpenSM's `qos TRUE|FALSE`: qos.enabled.
Result<void> Mapper::qosEnabled() {
  const Option* o = find("qos");
  if (!o) return {};
  if (o->value != "TRUE" && o->value != "FALSE")
    return std::unexpected(bad(*o, "qos", "TRUE or FALSE"));
  put("qos", Key{"enabled", o->value == "TRUE" ? "true" : "false", source("qos", *o)}, "qos");
  return {};
}

// One set of qos_* options (prefix "", "ca_", "sw0_", "swe_", "rtr_"): the
// same names less "qos_" in [qos]. What OpenSM leaves unset (max_vls 0,
// high_limit -1, tables "(null)", as its own dump writes them) is written
// commented; a value OpenSM would replace by its default, logging it, is
// refused with its line.
Result<void> Mapper::qosSet(std::string_view prefix) {
  const auto name = [&](std::string_view field) { return fmt::format("{}{}", prefix, field); };
  const Result<void> steps[] = {
      qosNumber("qos_" + name("max_vls"), name("max_vls"), 1, 15, 0),
      qosNumber("qos_" + name("high_limit"), name("high_limit"), 0, 255, -1),
      qosTable("qos_" + name("vlarb_high"), name("vlarb_high"), false),
      qosTable("qos_" + name("vlarb_low"), name("vlarb_low"), false),
      qosTable("qos_" + name("sl2vl"), name("sl2vl"), true),
  };
  for (const auto& r : steps)
    if (!r) return r;
  return {};
}

Result<void> Mapper::qosNumber(std::string_view option, std::string_view key, std::int64_t lo,
                               std::int64_t hi, std::int64_t unset) {
  const Option* o = find(option);
  if (!o) return {};
  std::optional<std::int64_t> n;
  if (o->value == "-1")
    n = -1;
  else if (const auto u = parseCNumber(o->value))
    n = static_cast<std::int64_t>(*u);
  if (!n || ((*n < lo || *n > hi) && *n != unset))
    return std::unexpected(bad(*o, option,
                               fmt::format("a number from {} to {}, or {} for OpenSM's default "
                                           "(ibsm's qos.{})",
                                           lo, hi, unset, key)));
  put("qos",
      Key{std::string(key), std::to_string(*n), source(option, *o),
          *n == unset ? "unset in OpenSM: the default applies" : "", *n == unset},
      option);
  return {};
}

Result<void> Mapper::qosTable(std::string_view option, std::string_view key, bool sl2vl) {
  const Option* o = find(option);
  if (!o) return {};
  if (o->value == "(null)" || o->value.empty()) {
    put("qos", Key{std::string(key), "\"\"", source(option, *o), "unset in OpenSM", true}, option);
    return {};
  }
  std::optional<Error> problem;
  if (sl2vl) {
    if (auto r = qos::parseSl2VlOption(o->value); !r) problem = r.error();
  } else if (auto r = qos::parseVlArbOption(o->value); !r) {
    problem = r.error();
  }
  if (problem)
    return std::unexpected(Error::at(
        file_, o->line, fmt::format("{} (ibsm's qos.{}): {}", option, key, problem->message)));
  put("qos", Key{std::string(key), tomlString(o->value), source(option, *o)}, option);
  return {};
}

// Every ibsm key an OpenSM option gives, in the file's section order; the
// first option that does not parse, once all were read.
Result<void> Mapper::mapOptions() {
  using R = Result<void>;
  const R steps[] = {
      portGuid(),
      number("sm_priority", "sm", "priority", 0, 15),
      hex64("sm_key", "sm", "sm_key"),
      mKey(),
      hex64("subnet_prefix", "sm", "subnet_prefix"),
      number("sweep_interval", "sm", "sweep_interval", 0, 86400),
      pollingPace(),
      path("partition_config_file", "sm", "partitions_file", "/etc/opensm/partitions.conf",
           "OpenSM's default, read only if it exists; ibsm refuses to start without a file it "
           "names: uncomment if you have one"),
      strictness(),
      number("head_of_queue_lifetime", "sm", "head_of_queue_lifetime", 0, 31),
      number("leaf_head_of_queue_lifetime", "sm", "leaf_head_of_queue_lifetime", 0, 31),
      number("packet_life_time", "sm", "switch_life_time", 0, 31),
      engines(),
      number("lmc", "routing", "lmc", 0, 7),
      path("root_guid_file", "routing", "root_guid_file", "", ""),
      window(),
      number("transaction_timeout", "mad", "timeout_ms", 1, 60000),
      number("transaction_retries", "mad", "retries", 0, 20),
      subnetTimeout(),
      perfmgr(),
      qosEnabled(),
      qosSet(""),
      qosSet("ca_"),
      qosSet("sw0_"),
      qosSet("swe_"),
      qosSet("rtr_"),
      path("qos_policy_file", "qos", "policy_file", "/etc/opensm/qos-policy.conf",
           "OpenSM's default, read only if it exists; ibsm refuses to start without a file it "
           "names: uncomment if you have one"),
      path("log_file", "log", "file", "/var/log/opensm.log",
           "OpenSM's default; ibsm logs to stderr (the journal under systemd) unless log.file "
           "names a file"),
      logLevel(),
  };
  for (const R& r : steps)
    if (!r) return std::unexpected(r.error());
  return {};
}

// The header, then each section's keys, each after the option it came from.
void Mapper::writeKeys(ImportedConfig& out) const {
  std::string& t = out.toml;
  t += fmt::format(
      "# ibsm.toml imported from {} by `ibsm config import` (OpenSM 3.3 opensm.conf).\n"
      "# Each key is preceded by the OpenSM option and line it comes from; OpenSM's\n"
      "# options with no ibsm equivalent close the file, as comments saying why.\n"
      "# Check it with `ibsm config check FILE` (man ibsm.toml for every key).\n",
      file_);
  for (const std::string_view section : kSections) {
    const auto it = keys_.find(std::string(section));
    if (it == keys_.end()) continue;
    t += fmt::format("\n[{}]\n", section);
    for (const Key& k : it->second) {
      t += fmt::format("# {}{}\n", k.source, k.note.empty() ? "" : ": " + k.note);
      t += fmt::format("{}{} = {}\n", k.commented ? "# " : "", k.name, k.literal);
      ++(k.commented ? out.commented : out.mapped);
    }
  }
}

// The options no key took, as comments saying why, in the file's order;
// those OpenSM does not know are warned about too.
void Mapper::writeUnmapped(ImportedConfig& out) const {
  std::string& t = out.toml;
  std::vector<std::pair<std::size_t, std::string>> rest;
  for (const auto& [name, o] : options_) {
    if (std::ranges::find(done_, name) != done_.end()) continue;
    const bool known = isOpenSmOption(name);
    if (!known)
      out.warnings.push_back(
          {o.line, fmt::format("unknown option '{}' (OpenSM warns \"Unrecognized token\" and "
                               "ignores it): kept as a comment",
                               name)});
    rest.emplace_back(o.line, fmt::format("# {}: {}\n", source(name, o),
                                          known ? whyNoEquivalent(name)
                                                : "unknown to OpenSM 3.3, which ignores it"));
  }
  std::ranges::sort(rest);
  if (!rest.empty()) t += "\n# OpenSM options ibsm has no key for, in the order of the file:\n";
  for (const auto& [line, text] : rest) {
    t += text;
    ++out.commented;
  }
}

Result<ImportedConfig> Mapper::run() {
  if (auto mapped = mapOptions(); !mapped) return std::unexpected(mapped.error());
  ImportedConfig out;
  out.warnings = std::move(warnings_);
  writeKeys(out);
  writeUnmapped(out);
  std::ranges::sort(out.warnings, {}, &ImportNote::line);
  return out;
}

}  // namespace

Result<ImportedConfig> importOpenSmConf(std::string_view text, std::string_view fileName) {
  std::map<std::string, Option> options;
  std::vector<ImportNote> notes;
  std::size_t lineNo = 0;
  while (!text.empty()) {
    ++lineNo;
    const auto eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    if (const auto hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    if (const auto odd = std::ranges::find_if(
            line, [](unsigned char c) { return (c < 0x20 && c != '\t') || c >= 0x7f; });
        odd != line.end())
      return std::unexpected(
          Error::at(fileName, lineNo,
                    fmt::format("expected printable ASCII text, found byte 0x{:02x}",
                                static_cast<unsigned char>(*odd))));
    const auto gap = line.find_first_of(" \t");
    const std::string_view name = line.substr(0, gap);
    std::string_view value = gap == std::string_view::npos ? "" : trim(line.substr(gap));
    const bool wordLike = std::ranges::all_of(
        name, [](unsigned char c) { return std::islower(c) || std::isdigit(c) || c == '_'; });
    if (!wordLike || !std::islower(static_cast<unsigned char>(name.front())))
      return std::unexpected(Error::at(
          fileName, lineNo,
          fmt::format("expected an OpenSM option line 'name value' (name in lower case letters, "
                      "digits and '_'), found '{}' (OpenSM would skip the line, warning only "
                      "\"Unrecognized token\")",
                      line)));
    // `name = value` is TOML's habit, not OpenSM's: OpenSM would take "= 7"
    // for the value and read it as 0.
    if (value.starts_with('=') || value.starts_with(':'))
      return std::unexpected(Error::at(
          fileName, lineNo,
          fmt::format("expected an OpenSM option line 'name value' (no '{}'), found '{}' (OpenSM "
                      "would take '{}' for the value, a number in it for 0)",
                      value.front(), line, value)));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    if (const auto seen = options.find(std::string(name)); seen != options.end())
      notes.push_back({lineNo, fmt::format("'{}' is set again (first at line {}): the last "
                                           "one counts, as in OpenSM",
                                           name, seen->second.line)});
    options[std::string(name)] = Option{std::string(value), lineNo};
  }
  return Mapper(std::move(options), std::string(fileName), std::move(notes)).run();
}

}  // namespace ibsm::sm::config
