#include "dpdt/run_loop.hpp"

#include <algorithm>
#include <condition_variable>
#include <string>
#include <thread>
#include <vector>

namespace dpdt {
namespace {

// How often the calling thread polls: Ctrl-C is seen within this, and the deadline exactly.
constexpr std::chrono::milliseconds kPollPeriod{10};

// Limits beyond this many seconds (about 30 years) are no limit: a deadline that far would
// overflow the clock's arithmetic.
constexpr double kLongestLimit = 1e9;

// The run loop whose worker this thread is (null elsewhere), and the depth of OptionalWork scopes.
thread_local const RunLoop* running_loop = nullptr;
thread_local int optional_scopes = 0;

std::chrono::steady_clock::duration seconds_from(double s) {
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
}

}  // namespace

void stop_point() {
    if (running_loop != nullptr) running_loop->stop_point(optional_scopes > 0);
}

OptionalWork::OptionalWork() { ++optional_scopes; }
OptionalWork::~OptionalWork() { --optional_scopes; }

void RunLoop::stop_point(bool optional) const {
    if (stopped()) throw Interrupted();
    if (cut() || (optional && timed_out())) throw Cut();
}

RunLoop::RunLoop(int n_threads, double time_limit, const Poll& poll)
    : n_threads_(std::max(1, n_threads)), poll_(poll), start_(std::chrono::steady_clock::now()),
      limited_(time_limit > 0.0 && time_limit < kLongestLimit) {
    if (limited_) {
        deadline_ = start_ + seconds_from(time_limit);
        cut_at_ = deadline_ + seconds_from(std::max(time_limit, 1.0) / 2.0);
    }
}

double RunLoop::seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void RunLoop::fail(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(error_mutex_);
    if (!error_) error_ = e;
    stop_.store(true);
}

void RunLoop::run(const std::function<int64_t(int)>& setup, const std::function<void(int, int64_t)>& task,
                  const std::function<Progress()>& progress) {
    std::mutex mutex;
    std::condition_variable changed;
    int running = 0;        // workers started and not yet returned, under `mutex`
    bool set_up = false;    // under `mutex`: setup has returned (or thrown)
    int64_t n_tasks = 0;    // written before set_up
    std::atomic<int64_t> next{0};
    auto worker = [&](int w) {
        running_loop = this;
        try {
            if (w == 0) {
                int64_t n = 0;
                try {
                    n = setup(0);
                } catch (const Cut&) {
                }
                std::lock_guard<std::mutex> lock(mutex);
                n_tasks = n;
                set_up = true;
                changed.notify_all();
            } else {
                std::unique_lock<std::mutex> lock(mutex);
                changed.wait(lock, [&] { return set_up; });
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
        running_loop = nullptr;
        std::lock_guard<std::mutex> lock(mutex);
        set_up = set_up || w == 0;   // a setup that threw releases the others too
        --running;
        changed.notify_all();
    };
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
        auto wake = std::chrono::steady_clock::now() + kPollPeriod;
        if (limited_ && !timed_out()) wake = std::min(wake, deadline_);
        if (limited_ && !cut()) wake = std::min(wake, cut_at_);
        changed.wait_until(lock, wake);
        if (running == 0) break;
        lock.unlock();
        const auto now = std::chrono::steady_clock::now();
        if (limited_ && !timed_out() && now >= deadline_) timed_out_.store(true);
        if (limited_ && !cut() && now >= cut_at_) cut_.store(true);
        if (!stopped() && poll_) {
            Progress at = progress ? progress() : Progress{};
            at.seconds = seconds();
            if (poll_(at)) fail(std::make_exception_ptr(Interrupted()));
        }
        lock.lock();
    }
}

void run_polled(const Poll& poll, const std::function<void()>& work) {
    RunLoop loop(1, 0.0, poll);
    loop.run([&](int) {
        work();
        return int64_t{0};
    }, nullptr, nullptr);
}

}  // namespace dpdt
