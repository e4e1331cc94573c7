// Counts per topology pair kept across cycles.
#include "pair_counts.h"

namespace schedhost::plugins::interpodaffinity {

void PairTotals::apply(const std::vector<PairDelta>& deltas, int64_t sign) {
  for (const PairDelta& d : deltas) {
    Channel& ch = channels_[d.channel];
    // Written in place only while these totals are its sole owner: no cycle state holds the
    // map any more, and all reads through the ones that did ended with their cycles.
    if (ch.totals.use_count() > 1) {
      ch.totals = std::make_shared<PairMap>(*ch.totals);
    }
    PairTotal& t = (*ch.totals)[d.pair];
    const bool wasNonZero = t.sum != 0;
    const bool wasTouched = t.touches != 0;
    t.sum += sign * d.sum;
    t.touches += sign * d.touches;
    const bool isNonZero = t.sum != 0;
    const bool isTouched = t.touches != 0;
    if (isNonZero != wasNonZero) {
      isNonZero ? ++ch.nonZero : --ch.nonZero;
    }
    if (isTouched != wasTouched) {
      isTouched ? ++ch.touched : --ch.touched;
    }
    ch.keyTouches[d.pair >> 32] += sign * d.touches;
  }
}

void PairTotals::compact() {
  for (Channel& ch : channels_) {
    if (ch.totals->size() <= 2 * ch.touched + 64) {
      continue;
    }
    auto live = std::make_shared<PairMap>();
    ch.totals->forEach([&live](uint64_t pair, const PairTotal& t) {
      if (t.touches != 0) {
        (*live)[pair] = t;
      }
    });
    ch.totals = std::move(live);
  }
}

std::vector<sh_id> PairTotals::touchedKeys(std::size_t channel) const {
  std::vector<sh_id> keys;
  channels_[channel].keyTouches.forEach([&keys](uint64_t key, int64_t touches) {
    if (touches > 0) {
      keys.push_back(static_cast<sh_id>(key));
    }
  });
  return keys;
}

}  // namespace schedhost::plugins::interpodaffinity
