// Reading PersistentVolumes and matching them to claims (upstream FindMatchingVolume and its
// helpers).
#include "pv_matching.h"

#include <schedhost/helpers.hpp>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace schedhost::plugins::volumebinding {

PvInfo readPv(const Host& host, const Object& object) {
  PvInfo pv;
  pv.name = std::string(object.name());
  pv.uid = std::string(object.uid());
  pv.resourceVersion = std::string(object.resourceVersion());
  pv.deleting = object.deleting();
  Json root = object.root();
  Json spec = root["spec"];
  bool betaClass = false;
  std::string_view beta = annotation(root, kAnnBetaStorageClass, &betaClass);
  pv.className = betaClass ? std::string(beta) : std::string(spec["storageClassName"].asString());
  Json claimRef = spec["claimRef"];
  pv.hasClaimRef = claimRef.isObject();
  pv.claimName = std::string(claimRef["name"].asString());
  pv.claimNamespace = std::string(claimRef["namespace"].asString());
  pv.claimUid = std::string(claimRef["uid"].asString());
  std::string quantityError;
  pv.capacity = Quantity::fromJson(spec["capacity"]["storage"], &quantityError);
  if (!quantityError.empty()) {
    pv.malformed = "spec.capacity.storage: " + quantityError;
  }
  pv.volumeMode = spec["volumeMode"].isString() ? std::string(spec["volumeMode"].asString())
                                                : std::string("Filesystem");
  Json modes = spec["accessModes"];
  for (std::size_t i = 0; i < modes.size() && modes.isArray(); ++i) {
    pv.accessModes.emplace_back(modes.at(i).asString());
  }
  pv.vac = std::string(spec["volumeAttributesClassName"].asString());
  pv.phase = std::string(root["status"]["phase"].asString());
  // Labels by id, their text from the host's intern table (valid for the process), so that the
  // info outlives the cycle's view.
  std::vector<std::pair<std::string, std::string>> labelText;
  for (uint32_t i = 0; i < object.labelCount(); ++i) {
    sh_label l = object.labels()[i];
    l.key_str = sh_str{host.str(l.key).data(), host.str(l.key).size()};
    l.value_str = sh_str{host.str(l.value).data(), host.str(l.value).size()};
    pv.labels.push_back(l);
    labelText.emplace_back(view(object.labels()[i].key_str), view(object.labels()[i].value_str));
  }
  NodeAffinityText affinity = NodeAffinityText::read(spec["nodeAffinity"]);
  pv.affinity = VolumeNodeAffinity::compile(host, affinity);
  pv.migration = translateForMigration(host, root, labelText, affinity);
  return pv;
}

PvPtr PvCache::get(const Object& object) {
  if (object.assumed() || object.resourceVersion().empty()) {
    return std::make_shared<const PvInfo>(readPv(host_, object));
  }
  const std::string name(object.name());
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(name);
    if (it != entries_.end() && it->second.info->resourceVersion == object.resourceVersion() &&
        it->second.info->uid == object.uid()) {
      it->second.seen = epoch_;
      return it->second.info;
    }
  }
  PvPtr info = std::make_shared<const PvInfo>(readPv(host_, object));
  if (!info->malformed.empty()) {
    host_.log(SH_LOG_WARN, "VolumeBinding: PersistentVolume " + quoted(info->name) + ": " +
                               info->malformed + "; it is not matched to any claim");
  }
  std::lock_guard<std::mutex> lock(mu_);
  entries_[name] = Entry{info, epoch_};
  return info;
}

void PvCache::sweep() {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = entries_.begin(); it != entries_.end();) {
    it = it->second.seen < epoch_ ? entries_.erase(it) : std::next(it);
  }
  ++epoch_;
}

bool volumeBoundToClaim(const PvInfo& pv, const ClaimInfo& claim) noexcept {
  if (!pv.hasClaimRef) {
    return false;
  }
  if (claim.name != pv.claimName || claim.ns != pv.claimNamespace) {
    return false;
  }
  return pv.claimUid.empty() || claim.uid == pv.claimUid;
}

bool volumeModeMismatches(const ClaimInfo& claim, const PvInfo& pv) noexcept {
  return claim.volumeMode != pv.volumeMode;
}

bool accessModesMatch(const ClaimInfo& claim, const PvInfo& pv) noexcept {
  for (const std::string& mode : claim.accessModes) {
    if (std::find(pv.accessModes.begin(), pv.accessModes.end(), mode) == pv.accessModes.end()) {
      return false;
    }
  }
  return true;
}

std::vector<Candidate> matchCandidates(const ClaimInfo& claim, const std::vector<PvRef>& volumes,
                                       std::string* error) {
  std::vector<Candidate> out;
  if (claim.hasSelector && !claim.selector.error().empty()) {
    *error = "error creating internal label selector for claim: " + claim.key() + ": " +
             claim.selector.error();
    return out;
  }
  for (const PvRef& ref : volumes) {
    const PvInfo& pv = *ref.info;
    if (!pv.malformed.empty()) {
      continue;  // logged by the cache; never matched
    }
    if (pv.hasClaimRef && !volumeBoundToClaim(pv, claim)) {
      continue;
    }
    if (pv.capacity.cmp(claim.request) < 0) {
      continue;
    }
    if (volumeModeMismatches(claim, pv)) {
      continue;
    }
    if (claim.vac != pv.vac) {
      continue;  // VolumeAttributesClass is GA (on) in v1.36
    }
    if (pv.deleting) {
      continue;
    }
    if (volumeBoundToClaim(pv, claim)) {
      out.push_back(Candidate{ref, true});
      continue;
    }
    if (pv.phase != "Available") {
      continue;
    }
    if (claim.hasSelector && !claim.selector.matches(LabelView{
                                 pv.labels.data(), static_cast<uint32_t>(pv.labels.size())})) {
      continue;
    }
    if (pv.className != claim.className) {
      continue;
    }
    if (!accessModesMatch(claim, pv)) {
      continue;
    }
    out.push_back(Candidate{ref, false});
  }
  return out;
}

const Candidate* findMatchingVolume(const std::vector<Candidate>& candidates, LabelView labels,
                                    const std::vector<std::string_view>& chosen) noexcept {
  const Candidate* smallest = nullptr;
  for (const Candidate& c : candidates) {
    const PvInfo& pv = *c.pv.info;
    if (std::find(chosen.begin(), chosen.end(), std::string_view(pv.name)) != chosen.end()) {
      continue;
    }
    const bool affinityValid = pv.affinity.matches(labels);
    if (c.boundToClaim) {
      // A pre-bound volume the node cannot reach means no match at all.
      return affinityValid ? &c : nullptr;
    }
    if (!affinityValid) {
      continue;
    }
    if (smallest == nullptr || smallest->pv.info->capacity.cmp(pv.capacity) > 0) {
      smallest = &c;
    }
  }
  return smallest;
}

}  // namespace schedhost::plugins::volumebinding
