// An in-memory fabric behind the MadTransport interface, for unit tests of
// everything above the wire (MAD engine, discovery, bring-up). It answers
// SMPs the way the nodes of a Fabric would: directed-route SMPs walk the
// Fabric's cables hop by hop, LID-routed ones go to the port holding the LID.
// Time is a fake clock that receive() advances, so timeouts cost nothing.
// An answer comes back its Fate's latency after the node's SMA is done with
// the request: at once by default, or one SMP at a time per node after a
// service time (setServiceTimes, the latency model of FakeSmaService.h):
//
//   FakeFabricTransport wire(fabric, PortRef{sw, 0});
//   MadEngine engine(wire, {.clock = wire.clock()});
//   wire.setFaults([](const Smp& req, std::size_t n) {
//     return FakeFabricTransport::Fate::dropped(n % 3 == 0);    // lose every third SMP
//   });
//
// Answers: Get NodeInfo, NodeDescription, PortInfo, SwitchInfo,
// LinearForwardingTable, MulticastForwardingTable, PKeyTable, SLtoVLMappingTable, and SMInfo where
// a test put an SM (runSm); Set PortInfo (LID, LMC, SM LID, GID prefix, port state, OperationalVLs
// up to VLCap, partition enforcement on switch external ports), SwitchInfo (LinearFDBTop;
// MulticastFDBTop where switch port 0's CapabilityMask has IsMulticastFDBTopSupported, else it is
// ignored, as ibsim does), LinearForwardingTable, MulticastForwardingTable (blocks up to
// SwitchData::multicastFdbCap, positions up to NumPorts; they start empty),
// PKeyTable and SLtoVLMappingTable, which change the fabric it holds. A port runs VLCap VLs until
// an OperationalVLs Set (or setOperationalVls) says otherwise. SL2VL tables are per (in, out) port
// pair on a switch (modifier bits 15..8 and 7..0, each at most NumPorts) and one per CA port (the
// port the SMP entered); they start as ibsim's: SL n -> VL n, SL 15 -> VL 7. PKey tables start as a
// fresh port's: 0xffff first, the rest 0; VLArbitrationTable (IBA 14.2.5.9) only where a test
// gave the ports caps (setVlArbCaps: PortInfo:VLArbitrationLowCap/HighCap, 0 by default): blocks
// 1-2 the low-priority table, 3-4 the high, a block whose first entry is past its cap refused
// (InvalidField, as ibsim); a switch's per output port (modifier bits 7..0, port 0 too), a CA
// port's the port the SMP entered; they start all zero. VLHighLimit is kept from PortInfo Sets.
// PKey tables start as a CA ports and switch port 0 have Node::partitionCap
// entries, switch external ports 32 if the switch enforces partitions
// (SwitchData::enforcesPartitions), else none. Anything else gets status "method/attribute
// unsupported". A cabled port whose Fabric state is Down reads as Init/LinkUp, as a fresh fabric
// does before an SM has run.
//
// M_Keys are checked as the IBA's SMA checks them (FakeMKeys.h): every Get, Set and TrapRepress
// against its port's key (a CA port's, a switch's port 0's), by the protection level; a failed
// check is not answered, counts in M_KeyViolations, starts the lease timer and sends trap 256
// to the port's SM LID when that is this SM's. A passing Set(PortInfo) writes M_Key,
// M_KeyProtectBits and M_KeyLeasePeriod. Every key starts 0: nothing is protected until a Set
// or protect() gives a port one.
//
//   wire.protect(PortRef{sw, 0}, 0xBAD, 2, 60s);          // another SM's key
//   auto reply = wire.foreignSmp(setLft, PortRef{host, 1});   // nullopt: dropped
#pragma once

#include <ibsm/Fabric.h>
#include <ibsm/Mad.h>
#include <ibsm/MadAttributes.h>

#include <bitset>
#include <chrono>
#include <cstddef>
#include <expected>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "sm/mad/MadTransport.h"
#include "tests/sm/support/FakeMKeys.h"
#include "tests/sm/support/FakeSmaService.h"

namespace ibsm::testing {

class FakeFabricTransport final : public MadTransport {
 public:
  // What happens to one request on the fake wire.
  struct Fate {
    bool drop{false};
    std::chrono::microseconds latency{10};
    unsigned duplicates{0};               // extra copies of the response
    std::optional<std::uint16_t> status;  // answer with this MAD status instead
    bool answerLost{false};               // processed (a Set takes), its answer lost

    static Fate lostAnswer() {
      Fate f;
      f.answerLost = true;
      return f;
    }

    static Fate dropped(bool drop = true) {
      Fate f;
      f.drop = drop;
      return f;
    }
    static Fate delayed(std::chrono::microseconds latency) {
      Fate f;
      f.latency = latency;
      return f;
    }
    static Fate duplicated(unsigned copies) {
      Fate f;
      f.duplicates = copies;
      return f;
    }
    static Fate answeredWith(std::uint16_t status) {
      Fate f;
      f.status = status;
      return f;
    }
  };
  // Called for every request the engine sends; n counts requests from 0.
  using FaultPolicy = std::function<Fate(const Smp& request, std::size_t n)>;

  struct SentMad {
    Smp smp;
    MadAddress to;
    MadClock::time_point at;
  };

  FakeFabricTransport(Fabric fabric, PortRef smPort);

  [[nodiscard]] Result<void> send(const MadBuffer& mad, MadAddress to) override;
  [[nodiscard]] Result<std::optional<ReceivedMad>> receive(MadClock::time_point deadline) override;
  int pollFd() const override { return -1; }

  void setFaults(FaultPolicy policy) { faults_ = std::move(policy); }
  // The latency model: each node answers one SMP at a time after a service
  // time per node kind (FakeSmaService.h); all zero by default.
  void setServiceTimes(FakeSmaService::Times times) { sma_.setTimes(times); }
  const FakeSmaService& sma() const { return sma_; }
  FakeSmaService& sma() { return sma_; }
  // Delivers an unsolicited MAD (a trap, another SM's Get) at now + after.
  void inject(const Smp& smp, MadAddress from, std::chrono::microseconds after = {});
  // Makes the next send() fail (a transport error).
  void failNextSend() { failNextSend_ = true; }

  // The SM's port from now on (a standby taking over from another host); the fabric, its
  // programming and M_Keys stay as they are.
  void moveSm(PortRef smPort) { smPort_ = smPort; }

  std::function<MadClock::time_point()> clock() const;
  MadClock::time_point now() const { return now_; }

  const std::vector<SentMad>& sent() const { return sent_; }
  const Fabric& fabric() const { return fabric_; }
  Fabric& fabric() { return fabric_; }
  // What Set(LinearForwardingTable) wrote; empty for a switch never set.
  const std::vector<std::uint8_t>& lft(NodeId sw) const;
  Lid smLid(PortRef port) const;
  // A switch's MFT entry for `mlid` (ports 0..255), and an entry put there
  // as if another SM had written it.
  std::bitset<256> mft(NodeId sw, std::uint16_t mlid) const;
  void setMft(NodeId sw, std::uint16_t mlid, const std::bitset<256>& ports);
  // SwitchInfo:PortStateChange, as a switch sets it when a link of it
  // goes down or up; a Set of SwitchInfo with the bit clears it (IBA).
  void flagPortStateChange(NodeId sw) { portStateChanged_.insert(sw); }
  std::uint16_t mcastTop(NodeId sw) const {
    auto it = mcastTops_.find(sw);
    return it == mcastTops_.end() ? 0 : it->second;
  }
  // The whole PKey table of a port (CA port, switch port 0 or external port).
  std::vector<std::uint16_t> pkeys(PortRef port) const;
  void setPKeys(PortRef port, std::vector<std::uint16_t> table);
  // PortInfo:PartitionEnforcementInbound and Outbound as last Set.
  std::pair<bool, bool> enforcement(PortRef port) const;
  // Acknowledge PortInfo Sets but keep the enforcement bits, as ibsim does.
  void ignoreEnforcementSets(bool ignore = true) { ignoreEnforcement_ = ignore; }
  // PortInfo Sets with ClientReregister a port was sent.
  unsigned reregistrations(PortRef port) const {
    auto it = reregistrations_.find(port);
    return it == reregistrations_.end() ? 0 : it->second;
  }
  // PortInfo:OperationalVLs (IBA code) a port holds.
  std::uint8_t operationalVls(PortRef port) const;
  void setOperationalVls(PortRef port, std::uint8_t code) { operVls_[port] = code; }
  // A switch's table for (in, out), or a CA port's (in 0, out = the port).
  SlToVlTable sl2vl(NodeId node, std::uint8_t in, std::uint8_t out) const;
  void setSl2Vl(NodeId node, std::uint8_t in, std::uint8_t out, const SlToVlTable& table);
  // Every port's VLArbitrationLowCap and HighCap (entries of each table).
  void setVlArbCaps(std::uint8_t low, std::uint8_t high) { vlArbCaps_ = {low, high}; }
  // Block 1..4 of a port's VLArbitration table (a switch's: output port).
  VlArbitrationBlock vlArb(PortRef port, std::uint16_t block) const;
  void setVlArb(PortRef port, std::uint16_t block, const VlArbitrationBlock& b) {
    vlArb_[{port, block}] = b;
  }
  std::uint8_t vlHighLimit(PortRef port) const {
    auto it = highLimits_.find(port);
    return it == highLimits_.end() ? 0 : it->second;
  }
  // Another SM on `port`: Get(SMInfo) there answers `info` (set the port's
  // CapabilityMask IsSM too, so that discovery sees an SM).
  void runSm(PortRef port, const SmInfo& info) { smInfos_[port] = info; }

  // M_Key protection of the port (a switch's: any of its ports names port 0's) as if an SM had
  // set it with Set(PortInfo); lease 0 never expires.
  void protect(PortRef port, std::uint64_t key, std::uint8_t bits, std::chrono::seconds lease);
  // The port's M_Key state as of now(): a lease that ran out has cleared the protect bits.
  MKeyState mkeyState(PortRef port) const;
  std::uint64_t mkey(PortRef port) const { return mkeyState(port).key; }
  std::uint8_t protectBits(PortRef port) const { return mkeyState(port).protectBits; }
  std::uint16_t violations(PortRef port) const { return mkeyState(port).violations; }
  // Moves the fake clock on (to run a lease out without an engine waiting).
  void advance(std::chrono::nanoseconds by) { now_ += by; }
  // An SMP from another host's port `from`, as that host's SMI would send it: directed route
  // walks from `from`, LID-routed goes to `to`. It is checked and answered as the SM's own but
  // neither recorded in sent() nor subject to the faults; the reply comes back here, nullopt
  // when none would (dropped by an M_Key check, nobody there, a TrapRepress).
  std::optional<Smp> foreignSmp(const Smp& request, PortRef from, Lid to = {});

 private:
  struct InFlight {
    MadClock::time_point due;
    std::uint64_t seq;
    ReceivedMad mad;
  };

  // Where an SMP sent from `from` lands: the node, and the port it entered through.
  std::optional<PortRef> walk(const Smp& request, PortRef from) const;
  std::optional<PortRef> destination(const Smp& request, Lid to, PortRef from) const;
  // The M_Key check, then the answer: nullopt when the SMA would not respond.
  std::optional<Smp> process(const Smp& request, PortRef at);
  // Trap 256 from the port holding the M_Key an SMP failed against.
  void badMKey(const Smp& request, PortRef holder);
  Smp answer(const Smp& request, PortRef at, bool hideMKey);
  // A MAD status instead of the data when the node would refuse.
  std::expected<SmpData, std::uint16_t> get(const Smp& request, PortRef at,
                                            bool hideMKey = false) const;
  std::expected<void, std::uint16_t> set(const Smp& request, PortRef at);
  void deliver(const ReceivedMad& mad, MadClock::time_point due);

  Fabric fabric_;
  PortRef smPort_;
  FaultPolicy faults_;
  bool failNextSend_{false};
  MadClock::time_point now_{};
  std::uint64_t seq_{0};
  std::size_t requests_{0};
  std::vector<InFlight> inFlight_;
  std::vector<SentMad> sent_;
  std::map<NodeId, std::vector<std::uint8_t>> lfts_;
  std::map<std::pair<NodeId, std::uint16_t>, MftBlock> mfts_;  // (switch, block*16+position)
  std::map<NodeId, std::uint16_t> mcastTops_;
  std::set<NodeId> portStateChanged_;
  std::map<PortRef, Lid> smLids_;
  std::map<PortRef, std::uint64_t> gidPrefixes_;    // as Set PortInfo wrote them
  std::map<PortRef, std::uint8_t> subnetTimeouts_;  // likewise
  std::map<PortRef, unsigned> reregistrations_;
  std::map<PortRef, std::vector<std::uint16_t>> pkeys_;  // ports whose table was Set
  std::map<PortRef, std::pair<bool, bool>> enforcement_;
  std::map<PortRef, std::uint8_t> operVls_;  // ports whose OperationalVLs was Set
  std::map<std::tuple<NodeId, std::uint8_t, std::uint8_t>, SlToVlTable> sl2vl_;  // tables Set
  std::map<PortRef, SmInfo> smInfos_;                      // ports answering Get(SMInfo)
  std::pair<std::uint8_t, std::uint8_t> vlArbCaps_{0, 0};  // low, high
  std::map<std::pair<PortRef, std::uint16_t>, VlArbitrationBlock> vlArb_;  // blocks Set
  std::map<PortRef, std::uint8_t> highLimits_;  // as PortInfo Sets wrote them
  bool ignoreEnforcement_{false};
  FakeMKeys mkeys_;
  FakeSmaService sma_;
};

}  // namespace ibsm::testing
