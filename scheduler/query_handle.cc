#include "scheduler/query_handle.h"

namespace forktail {

bool QueryHandle::Done() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->done;
}

void QueryHandle::Wait() const {
  if (std::exception_ptr error = WaitError()) std::rethrow_exception(error);
}

std::exception_ptr QueryHandle::WaitError() const {
  std::unique_lock<std::mutex> lock(state_->mutex);
  state_->done_cv.wait(lock, [&] { return state_->done; });
  return state_->error;
}

QueryProgress QueryHandle::FinalProgress() const {
  std::unique_lock<std::mutex> lock(state_->mutex);
  state_->done_cv.wait(lock, [&] { return state_->done; });
  return state_->final_progress;
}

void QueryHandle::Complete(std::exception_ptr error, QueryProgress final_progress) const {
  std::function<void(const QueryHandle&)> on_done;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->error = std::move(error);
    state_->final_progress = std::move(final_progress);
    state_->done = true;
    on_done = std::move(state_->on_done);
  }
  state_->done_cv.notify_all();
  if (on_done) on_done(*this);
}

}  // namespace forktail
