#include <ibsm/Engines.h>

namespace ibsm {

EngineRegistry defaultRegistry() {
  EngineRegistry r;
  r.add("minhop", makeMinHopEngine);
  r.add("updn", makeUpDownEngine);
  r.add("ftree", makeFatTreeEngine);
  r.add("ftree-vl", makeFatTreeVlEngine);
  r.add("dragonfly", makeDragonflyEngine);
  r.add("sssp", makeSsspEngine);
  r.add("auto", makeAutoEngine);
  return r;
}

}  // namespace ibsm
