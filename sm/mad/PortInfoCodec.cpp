// PortInfo (IBA 14.2.5.6), the attribute with the most fields.
#include <ibsm/MadAttributes.h>

#include <tuple>

#include "sm/mad/BitField.h"

namespace ibsm {
namespace {

using sm::mad::Field;
using P = PortInfo;

constexpr auto kPortInfoFields = std::tuple{
    Field{&P::mKey, 0, 64},
    Field{&P::gidPrefix, 64, 64},
    Field{&P::lid, 128, 16},
    Field{&P::masterSmLid, 144, 16},
    Field{&P::capabilityMask, 160, 32},
    Field{&P::diagCode, 192, 16},
    Field{&P::mKeyLeasePeriod, 208, 16},
    Field{&P::localPortNum, 224, 8},
    Field{&P::linkWidthEnabled, 232, 8},
    Field{&P::linkWidthSupported, 240, 8},
    Field{&P::linkWidthActive, 248, 8},
    Field{&P::linkSpeedSupported, 256, 4},
    Field{&P::portState, 260, 4},
    Field{&P::physState, 264, 4},
    Field{&P::linkDownDefaultState, 268, 4},
    Field{&P::mKeyProtectBits, 272, 2},
    Field{&P::lmc, 277, 3},
    Field{&P::linkSpeedActive, 280, 4},
    Field{&P::linkSpeedEnabled, 284, 4},
    Field{&P::neighborMtu, 288, 4},
    Field{&P::masterSmSl, 292, 4},
    Field{&P::vlCap, 296, 4},
    Field{&P::initType, 300, 4},
    Field{&P::vlHighLimit, 304, 8},
    Field{&P::vlArbitrationHighCap, 312, 8},
    Field{&P::vlArbitrationLowCap, 320, 8},
    Field{&P::initTypeReply, 328, 4},
    Field{&P::mtuCap, 332, 4},
    Field{&P::vlStallCount, 336, 3},
    Field{&P::hoqLife, 339, 5},
    Field{&P::operationalVls, 344, 4},
    Field{&P::partitionEnforcementInbound, 348, 1},
    Field{&P::partitionEnforcementOutbound, 349, 1},
    Field{&P::filterRawInbound, 350, 1},
    Field{&P::filterRawOutbound, 351, 1},
    Field{&P::mKeyViolations, 352, 16},
    Field{&P::pKeyViolations, 368, 16},
    Field{&P::qKeyViolations, 384, 16},
    Field{&P::guidCap, 400, 8},
    Field{&P::clientReregister, 408, 1},
    Field{&P::multicastPKeyTrapSuppression, 409, 2},
    Field{&P::subnetTimeout, 411, 5},
    Field{&P::respTimeValue, 419, 5},
    Field{&P::localPhyErrors, 424, 4},
    Field{&P::overrunErrors, 428, 4},
    Field{&P::maxCreditHint, 432, 16},
    Field{&P::linkRoundTripLatency, 456, 24},
    Field{&P::capabilityMask2, 480, 16},
    Field{&P::linkSpeedExtActive, 496, 4},
    Field{&P::linkSpeedExtSupported, 500, 4},
    Field{&P::linkSpeedExtEnabled, 507, 5},
};

}  // namespace

SmpData encode(const PortInfo& v) {
  SmpData out{};
  sm::mad::encodeFields(v, kPortInfoFields, out);
  return out;
}

PortInfo decodePortInfo(const SmpData& data) {
  PortInfo v;
  sm::mad::decodeFields(data, kPortInfoFields, v);
  return v;
}

}  // namespace ibsm
