#include "olap/session/notification_hub.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace forktail {

NotificationHub::Listener::Listener() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
}

NotificationHub::Listener::~Listener() { ::close(fd_); }

std::vector<Notification> NotificationHub::Listener::Take() {
  std::lock_guard lock(mu_);
  uint64_t count = 0;
  while (::read(fd_, &count, sizeof count) < 0 && errno == EINTR) {
  }
  std::vector<Notification> out(queue_.begin(), queue_.end());
  queue_.clear();
  return out;
}

void NotificationHub::Listener::Deliver(const Notification& n) {
  std::lock_guard lock(mu_);
  queue_.push_back(n);
  const uint64_t one = 1;
  while (::write(fd_, &one, sizeof one) < 0 && errno == EINTR) {
  }
}

void NotificationHub::Listen(const std::string& channel, Listener* listener) {
  std::lock_guard lock(mu_);
  channels_[channel].insert(listener);
}

void NotificationHub::Unlisten(const std::string& channel, Listener* listener) {
  std::lock_guard lock(mu_);
  auto it = channels_.find(channel);
  if (it == channels_.end()) return;
  it->second.erase(listener);
  if (it->second.empty()) channels_.erase(it);
}

void NotificationHub::UnlistenAll(Listener* listener) {
  std::lock_guard lock(mu_);
  for (auto it = channels_.begin(); it != channels_.end();) {
    it->second.erase(listener);
    it = it->second.empty() ? channels_.erase(it) : std::next(it);
  }
}

void NotificationHub::Notify(const Notification& n) {
  std::lock_guard lock(mu_);
  auto it = channels_.find(n.channel);
  if (it == channels_.end()) return;
  for (Listener* listener : it->second) listener->Deliver(n);
}

}  // namespace forktail
