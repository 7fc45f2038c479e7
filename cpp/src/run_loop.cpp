#include "dpdt/run_loop.hpp"

#include <algorithm>
#include <condition_variable>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace dpdt {
namespace {

// How often the calling thread polls: Ctrl-C is seen within this, and the deadline exactly (a loop
// of one worker: at its first stop point past them, within about kInlineCheck).
constexpr std::chrono::milliseconds kPollPeriod{10};
// A loop of one worker reads the clock about this often, at most kMaxInlineStride stop points
// apart: the bounded search's hot loops call stop_point() every microsecond or so, where a clock
// read costs some 30 ns.
constexpr std::chrono::microseconds kInlineCheck{1000};
constexpr int kMaxInlineStride = 16;

// Limits beyond this many seconds (about 30 years) are no limit: a deadline that far would
// overflow the clock's arithmetic.
constexpr double kLongestLimit = 1e9;

// The run loop whose worker this thread is (null elsewhere), and the depth of OptionalWork scopes.
thread_local RunLoop* running_loop = nullptr;
thread_local int running_worker = 0;
thread_local int optional_scopes = 0;
// The SharedStop of the run loops this thread makes (null: none).
thread_local const SharedStop* shared_stop = nullptr;

std::chrono::steady_clock::duration seconds_from(double s) {
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

void stop_point() {
    if (running_loop != nullptr) running_loop->stop_point(optional_scopes > 0);
}

OptionalWork::OptionalWork() { ++optional_scopes; }
OptionalWork::~OptionalWork() { --optional_scopes; }

void RunLoop::stop_point(bool optional) {
    if (inline_progress_ != nullptr && --inline_countdown_ <= 0) check_inline();
    if (stopped()) throw Interrupted();
    if (cut() || (optional && limit_reached())) throw Cut();
}

SharedStop::SharedStop(double time_limit) : limited_(time_limit > 0.0 && time_limit < kLongestLimit) {
    if (limited_) {
        deadline_ = std::chrono::steady_clock::now() + seconds_from(time_limit);
        cut_at_ = deadline_ + seconds_from(std::max(time_limit, 1.0) / 2.0);
    }
}

double SharedStop::remaining() const {
    if (!limited_) return std::numeric_limits<double>::infinity();
    return std::chrono::duration<double>(deadline_ - std::chrono::steady_clock::now()).count();
}

SharedStopScope::SharedStopScope(const SharedStop* stop) : outer_(shared_stop) { shared_stop = stop; }
SharedStopScope::~SharedStopScope() { shared_stop = outer_; }

RunLoop::RunLoop(int n_threads, double time_limit, const Poll& poll)
    : n_threads_(std::max(1, n_threads)), poll_(poll), shared_(shared_stop),
      start_(std::chrono::steady_clock::now()), limited_(time_limit > 0.0 && time_limit < kLongestLimit) {
    if (!limited_) return;
    deadline_ = start_ + seconds_from(time_limit);
    auto cut_at = deadline_ + seconds_from(std::max(time_limit, 1.0) / 2.0);
    // Only a search with a limit of its own can stop short with a valid result; the others
    // (presorting, binning) are not timed.
    if (shared_ != nullptr && shared_->limited()) {
        deadline_ = std::min(deadline_, shared_->deadline());
        cut_at = std::min(cut_at, shared_->cut_at());
    }
    cut_at_.store(cut_at.time_since_epoch().count());
    // A loop made past its deadline (a late fit of a shared one) wraps up from its first step.
    if (start_ >= deadline_) reach(Limit::Time);
    if (start_ >= cut_at) cut_.store(true);
}

void RunLoop::reach(Limit limit) {
    Limit none = Limit::None;
    if (limit_.compare_exchange_strong(none, limit) && limit != Limit::Time) {
        const auto now = std::chrono::steady_clock::now();
        const auto cut_at = (now + seconds_from(std::max(seconds(), 1.0) / 2.0)).time_since_epoch().count();
        auto at = cut_at_.load();
        while (cut_at < at && !cut_at_.compare_exchange_weak(at, cut_at)) {
        }
    }
    limit_reached_.store(true);
}

void RunLoop::cut_short(Limit limit) {
    reach(limit);
    cut_at_.store(std::chrono::steady_clock::now().time_since_epoch().count());
    cut_.store(true);
}

double RunLoop::seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void RunLoop::fail(std::exception_ptr e) {
    {
        std::lock_guard<std::mutex> lock(error_mutex_);
        if (!error_) error_ = e;
        stop_.store(true);
    }
    // Workers waiting for jobs see the stop (taking the mutex orders it before their wait).
    { std::lock_guard<std::mutex> lock(jobs_mutex_); }
    jobs_changed_.notify_all();
}

bool RunLoop::take_job(const JobGroup* own, int min_depth, Job& job) {
    auto chosen = jobs_.end();
    for (auto it = jobs_.begin(); it != jobs_.end(); ++it) {
        if (own != nullptr && it->group == own) {
            chosen = it;
            break;
        }
        const int depth = it->group->depth_;
        if (depth >= min_depth && (chosen == jobs_.end() || depth < chosen->group->depth_)) chosen = it;
    }
    if (chosen == jobs_.end()) return false;
    job = *chosen;
    jobs_.erase(chosen);
    return true;
}

void RunLoop::run_job(const Job& job, int worker) {
    // A job is optional work when the work that handed it out was, whatever its worker suspended.
    const int optional = optional_scopes;
    optional_scopes = job.group->optional_ ? 1 : 0;
    if (!stopped()) {
        try {
            job.group->jobs_[job.index](worker);
        } catch (const Cut&) {
        } catch (...) {
            fail(std::current_exception());
        }
    }
    optional_scopes = optional;
    std::lock_guard<std::mutex> lock(jobs_mutex_);
    --job.group->unfinished_;
    jobs_changed_.notify_all();
}

void RunLoop::help_while(std::unique_lock<std::mutex>& lock, int worker, const JobGroup* own, int min_depth,
                         bool counts_busy, const std::function<bool()>& waiting) {
    while (waiting()) {
        Job job;
        if (take_job(own, min_depth, job)) {
            busy_ += counts_busy;
            lock.unlock();
            run_job(job, worker);
            lock.lock();
            busy_ -= counts_busy;
            continue;
        }
        ++idle_;
        jobs_changed_.wait(lock);
        --idle_;
    }
}

void RunLoop::help_until_done(int worker) {
    std::unique_lock<std::mutex> lock(jobs_mutex_);
    --busy_;
    jobs_changed_.notify_all();
    // Only a busy worker hands out jobs: once none is, no job can appear any more.
    help_while(lock, worker, nullptr, 0, true, [&] { return busy_ > 0 && !stopped(); });
    jobs_changed_.notify_all();
}

int sharing_width() {
    const RunLoop* loop = running_loop;
    return loop != nullptr && loop->wants_jobs() ? loop->n_workers() : 1;
}

void parallel_for(int64_t n, const std::function<void(int64_t)>& body) {
    RunLoop* loop = running_loop;
    if (n <= 1 || loop == nullptr || loop->n_workers() < 2 || !loop->wants_jobs()) {
        for (int64_t k = 0; k < n; ++k) body(k);
        return;
    }
    std::vector<std::function<void(int)>> jobs;
    jobs.reserve(static_cast<size_t>(n));
    // A call cut by the time limit has not done its part: the whole is cut.
    std::atomic<bool> cut{false};
    for (int64_t k = 0; k < n; ++k) {
        jobs.emplace_back([&body, &cut, k](int) {
            try {
                body(k);
            } catch (const Cut&) {
                cut.store(true);
            }
        });
    }
    JobGroup group(*loop, JobGroup::kNoScratch, std::move(jobs));
    group.join(running_worker);
    if (cut.load()) throw Cut();
}

JobGroup::JobGroup(RunLoop& loop, int depth, std::vector<std::function<void(int)>> jobs)
    : loop_(loop), depth_(depth), optional_(optional_scopes > 0), jobs_(std::move(jobs)), unfinished_(jobs_.size()) {
    {
        std::lock_guard<std::mutex> lock(loop_.jobs_mutex_);
        for (size_t i = 0; i < jobs_.size(); ++i) loop_.jobs_.push_back({this, i});
    }
    loop_.jobs_changed_.notify_all();
}

void JobGroup::join(int worker) {
    std::unique_lock<std::mutex> lock(loop_.jobs_mutex_);
    loop_.help_while(lock, worker, this, depth_, false, [&] { return unfinished_ > 0; });
    lock.unlock();
    // A stopped loop skips jobs: their results are missing.
    if (loop_.stopped()) throw Interrupted();
}

JobGroup::~JobGroup() {
    std::unique_lock<std::mutex> lock(loop_.jobs_mutex_);
    const auto before = loop_.jobs_.size();
    loop_.jobs_.erase(std::remove_if(loop_.jobs_.begin(), loop_.jobs_.end(),
                                     [&](const RunLoop::Job& j) { return j.group == this; }),
                      loop_.jobs_.end());
    unfinished_ -= before - loop_.jobs_.size();
    loop_.jobs_changed_.wait(lock, [&] { return unfinished_ == 0; });
}

void RunLoop::run(const std::function<int64_t(int)>& setup, const std::function<void(int, int64_t)>& task,
                  const std::function<Progress()>& progress) {
    // A fit started after its caller cancelled (a cross-validation's next fold) does nothing.
    if (shared_ != nullptr && shared_->cancelled()) throw Interrupted();
    std::mutex mutex;
    std::condition_variable changed;
    int running = 0;        // workers started and not yet returned, under `mutex`
    bool set_up = false;    // under jobs_mutex_: setup has returned (or thrown)
    int64_t n_tasks = 0;    // written before set_up
    std::atomic<int64_t> next{0};
    auto release = [&](int64_t n) {
        {
            std::lock_guard<std::mutex> lock(jobs_mutex_);
            n_tasks = n;
            set_up = true;
        }
        jobs_changed_.notify_all();
    };
    auto worker = [&](int w) {
        running_loop = this;
        running_worker = w;
        {
            std::lock_guard<std::mutex> lock(jobs_mutex_);
            ++busy_;
        }
        try {
            if (w == 0) {
                int64_t n = 0;
                try {
                    n = setup(0);
                } catch (const Cut&) {
                } catch (...) {
                    release(0);   // the others wait for setup
                    throw;
                }
                release(n);
            } else {
                // The setup's jobs (parallel_for) are the only work until it returns.
                std::unique_lock<std::mutex> lock(jobs_mutex_);
                help_while(lock, w, nullptr, 0, false, [&] { return !set_up; });
            }
            for (int64_t k = next.fetch_add(1); k < n_tasks && !stopped(); k = next.fetch_add(1)) {
                try {
                    task(w, k);
                } catch (const Cut&) {
                }
            }
        } catch (...) {
            fail(std::current_exception());
        }
        help_until_done(w);
        running_loop = nullptr;
        std::lock_guard<std::mutex> lock(mutex);
        --running;
        changed.notify_all();
    };
    if (n_threads_ == 1) {
        // The calling thread is the worker (see the top of dpdt/run_loop.hpp). It may be a worker
        // of another loop, whose stop points are its own again once this one returns.
        RunLoop* const outer = running_loop;
        const int outer_worker = running_worker;
        inline_progress_ = &progress;
        inline_checked_ = std::chrono::steady_clock::now();
        next_poll_ = inline_checked_ + kPollPeriod;
        running = 1;
        worker(0);
        inline_progress_ = nullptr;
        running_loop = outer;
        running_worker = outer_worker;
        std::lock_guard<std::mutex> lock(error_mutex_);
        if (error_) std::rethrow_exception(error_);
        return;
    }
    // Every path below reaches the joins: a thread that fails to start stops the others (setup
    // sees stopped()), and so does an exception of the polling thread.
    std::vector<std::thread> threads;
    try {
        threads.reserve(static_cast<size_t>(n_threads_));
        for (int w = 0; w < n_threads_; ++w) {
            std::lock_guard<std::mutex> lock(mutex);
            try {
                threads.emplace_back(worker, w);
            } catch (const std::exception& e) {
                throw ThreadStartFailed("could not start thread " + std::to_string(w + 1) + " of " +
                                        std::to_string(n_threads_) + " (" + e.what() + "); lower n_jobs");
            }
            ++running;
        }
        poll_until_done(running, mutex, changed, progress);
    } catch (...) {
        fail(std::current_exception());
    }
    for (std::thread& t : threads) t.join();
    std::lock_guard<std::mutex> lock(error_mutex_);
    if (error_) std::rethrow_exception(error_);
}

void RunLoop::poll_until_done(const int& running, std::mutex& mutex, std::condition_variable& changed,
                              const std::function<Progress()>& progress) {
    std::unique_lock<std::mutex> lock(mutex);
    while (running > 0) {
        using Clock = std::chrono::steady_clock;
        const Clock::time_point cut_at{Clock::duration{cut_at_.load()}};
        auto wake = Clock::now() + kPollPeriod;
        if (limited_ && !limit_reached()) wake = std::min(wake, deadline_);
        if (!cut()) wake = std::min(wake, cut_at);
        changed.wait_until(lock, wake);
        if (running == 0) break;
        lock.unlock();
        check(Clock::now(), true, progress);
        lock.lock();
    }
}

void RunLoop::check(std::chrono::steady_clock::time_point now, bool poll, const std::function<Progress()>& progress) {
    using Clock = std::chrono::steady_clock;
    if (limited_ && !limit_reached() && now >= deadline_) reach(Limit::Time);
    if (!cut() && now >= Clock::time_point{Clock::duration{cut_at_.load()}}) cut_.store(true);
    if (!stopped() && shared_ != nullptr && shared_->cancelled()) fail(std::make_exception_ptr(Interrupted()));
    if (!stopped() && poll_ && poll) {
        Progress at = progress ? progress() : Progress{};
        at.seconds = seconds();
        if (poll_(at)) fail(std::make_exception_ptr(Interrupted()));
    }
}

void RunLoop::check_inline() {
    const auto now = std::chrono::steady_clock::now();
    if (now - inline_checked_ > kInlineCheck)
        inline_stride_ = 1;
    else if (now - inline_checked_ < kInlineCheck / 4)
        inline_stride_ = std::min(2 * inline_stride_, kMaxInlineStride);
    inline_countdown_ = inline_stride_;
    inline_checked_ = now;
    const bool poll = now >= next_poll_;
    if (poll) next_poll_ = now + kPollPeriod;
    check(now, poll, *inline_progress_);
}

void run_polled(const Poll& poll, const std::function<void()>& work) {
    RunLoop loop(1, 0.0, poll);
    loop.run([&](int) {
        work();
        return int64_t{0};
    }, nullptr, nullptr);
}

}  // namespace dpdt
