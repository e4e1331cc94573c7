// QueueByName: a QueueSort plugin for the profile-swap tests — pods in name order, or in
// reverse name order with {"descending": true}, so a new generation visibly re-sorts the queue.
#include <schedhost/plugin.hpp>

#include <string_view>

namespace {

class QueueByName : public schedhost::QueueSortPlugin {
 public:
  QueueByName(schedhost::Host&, const schedhost::Args& args)
      : descending_(args["descending"].present() && args["descending"].asBool()) {}
  bool less(const sh_queued_pod& a, const sh_queued_pod& b) const noexcept {
    const std::string_view na(a.pod->name.ptr, a.pod->name.len);
    const std::string_view nb(b.pod->name.ptr, b.pod->name.len);
    return descending_ ? nb < na : na < nb;
  }

 private:
  bool descending_ = false;
};

}  // namespace

SCHEDHOST_PLUGIN(QueueByName, "QueueByName", "1.0.0")
