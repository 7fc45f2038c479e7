// The one run loop of every search (DPDT, the bounded exhaustive search, BRANCHES): worker threads
// take a phase's tasks in order while the calling thread polls for Ctrl-C and reports progress;
// the loop owns the deadline, the first error and the joining of every thread it started. A search
// supplies its tasks and what progress to report, and its long loops call stop_point().
//
// The time limit T has two steps. At T the loop has reached its limit (limit_reached()): a search
// explores no further candidate and drops work marked optional (OptionalWork: generating
// candidates beyond the greedy split), so what is left is the greedy completion of the states in progress. At T plus a grace of
// max(T, 1 s) / 2 the loop is cut(): every stop_point() throws Cut, and each state in progress
// keeps what it had (its leaf and the candidates whose children were solved). A fit so returns
// within max(2 T, T + 1 s), the rest left for unwinding and output; it is never worse than the
// greedy tree when the greedy completion fits in the grace, as it does on all but huge or
// pathological data (a greedy tree costs a few scans of the samples per level).
//
// A search's other limits (its states, its memory) end it the same way: the search calls reach()
// when it passes one, and the loop wraps up as at a deadline, its grace max(t, 1 s) / 2 after the
// t seconds run so far. limit() names the first limit reached, which the result reports.
//
// A loop of one worker runs it on the calling thread, which then polls from the worker's
// stop_point() calls: handing the work to a thread of its own and waiting for it costs two
// wake-ups a loop, milliseconds each on a busy machine, which small fits paid several times over.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace dpdt {

class JobGroup;

// How far a running search is, as `poll` sees it: the states solved (BRANCHES: the branches
// expanded), and the root's tasks done out of `root_tasks` (DPDT: one side of one root candidate
// each; the bounded search: the shallower root, then each feature), 0 until they are counted.
struct Progress {
    int64_t states = 0;
    int64_t root_tasks = 0, root_tasks_done = 0;
    double seconds = 0.0;
};

// `poll` is called every few milliseconds from the calling thread while worker threads solve, with
// the progress so far; returning true stops the fit, which then throws Interrupted.
using Poll = std::function<bool(const Progress&)>;

// What ended a run early; None while no limit is reached.
enum class Limit : int { None = 0, Time, States, Memory };

class Interrupted : public std::runtime_error {
  public:
    Interrupted() : std::runtime_error("interrupted") {}
};

// Thrown by stop_point() when the time limit ends the work in progress. A search catches it where
// that work began and keeps what it had; one escaping a task ends the task, one escaping setup
// leaves no tasks. No error: the run ends normally.
class Cut {};

// Called by every loop of a search that can be long, at a cheap granularity (a feature, a few
// thousand samples, a candidate): throws Interrupted after Ctrl-C or an error, and Cut once the
// time limit ends the current work (see above). Does nothing outside a run loop's workers.
void stop_point();

// `v` as `size` copies of `value`, filled a chunk at a time between stop points: a histogram of
// many classes is large enough that filling it takes seconds.
template <class T>
void assign_polled(std::vector<T>& v, size_t size, T value) {
    constexpr size_t kChunk = size_t{1} << 20;
    v.clear();
    v.reserve(size);
    while (v.size() < size) {
        stop_point();
        v.resize(std::min(size, v.size() + kChunk), value);
    }
}

// Marks the work of its scope (on this thread) as optional: stop_point() cuts it at the time limit
// itself rather than at the end of the grace.
class OptionalWork {
  public:
    OptionalWork();
    ~OptionalWork();
    OptionalWork(const OptionalWork&) = delete;
    OptionalWork& operator=(const OptionalWork&) = delete;
};

// The system refused a thread (address space, process limits): the threads already started are
// stopped and joined first.
class ThreadStartFailed : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// What stops a caller's fits together: a cross-validation's fits, boosting's trees, each running
// on a thread of the caller's. cancel() stops every run loop made under it (they throw
// Interrupted); a time limit, if given, sets one deadline and one end of grace (as a run loop's,
// below) for every time-limited run loop made under it, however late each starts: the fits of a
// whole cross-validation so end within max(2 T, T + 1 s) of its start.
class SharedStop {
  public:
    // time_limit in seconds from now, <= 0 for none.
    explicit SharedStop(double time_limit = 0.0);
    void cancel() { cancelled_.store(true); }
    bool cancelled() const { return cancelled_.load(); }
    bool limited() const { return limited_; }
    std::chrono::steady_clock::time_point deadline() const { return deadline_; }
    std::chrono::steady_clock::time_point cut_at() const { return cut_at_; }
    // Seconds left until the deadline (negative once passed; infinite without one).
    double remaining() const;

  private:
    std::atomic<bool> cancelled_{false};
    bool limited_ = false;
    std::chrono::steady_clock::time_point deadline_, cut_at_;
};

// Every run loop made on this thread while the scope lives obeys `stop` too (null: none).
class SharedStopScope {
  public:
    explicit SharedStopScope(const SharedStop* stop);
    ~SharedStopScope();
    SharedStopScope(const SharedStopScope&) = delete;
    SharedStopScope& operator=(const SharedStopScope&) = delete;

  private:
    const SharedStop* outer_;
};

class RunLoop {
  public:
    // n_threads workers (at least 1); time_limit in seconds from now, <= 0 for none. The calling
    // thread's SharedStop, if any, also stops it, and, with a time limit, its deadline and grace
    // hold if earlier.
    RunLoop(int n_threads, double time_limit, const Poll& poll);

    // Runs a search on the workers while the calling thread polls with progress(): worker 0 runs
    // setup(0), which returns the number of tasks, then every worker takes task(worker, k) for
    // k = 0, 1, ... in that order (worker < n_workers()). Returns once every worker has returned,
    // and rethrows the first exception of setup, a task, poll or starting a thread; Interrupted
    // when poll asked to stop. After an error, the tasks not yet taken are skipped.
    void run(const std::function<int64_t(int)>& setup, const std::function<void(int, int64_t)>& task,
             const std::function<Progress()>& progress);

    int n_workers() const { return n_threads_; }
    // Some worker has nothing to do: a task that can split its work into a JobGroup should.
    bool wants_jobs() const { return idle_.load(std::memory_order_relaxed) > 0; }
    // An error or an interrupt: the work should end (by returning or throwing Interrupted).
    bool stopped() const { return stop_.load(std::memory_order_relaxed); }
    // A limit is reached (the deadline, set by the polling thread, or one a search reach()ed):
    // the work should wrap up with what it has.
    bool limit_reached() const { return limit_reached_.load(std::memory_order_relaxed); }
    // The first limit reached (None while none is).
    Limit limit() const { return limit_.load(); }
    // A search passed `limit` (States or Memory): the loop wraps up as at the time limit's
    // deadline (see the top of this file). Any worker may call it; the first limit stays.
    void reach(Limit limit);
    // A search that can take no more (its memory budget spent): reach(limit), and the grace ends
    // now, so that every stop_point() throws Cut and each state in progress keeps what it has.
    void cut_short(Limit limit);
    // The grace after the limit has passed too: stop_point() throws Cut everywhere.
    bool cut() const { return cut_.load(std::memory_order_relaxed); }
    // Seconds since the loop was made.
    double seconds() const;

    // stop_point() for the workers of this loop.
    void stop_point(bool optional);

  private:
    friend class JobGroup;
    struct Job {
        JobGroup* group;
        size_t index;
    };
    void fail(std::exception_ptr e);
    // Under jobs_mutex_: the first job of `own` not yet taken, else the shallowest job of depth at
    // least `min_depth` (the oldest first); false if none.
    bool take_job(const JobGroup* own, int min_depth, Job& job);
    void run_job(const Job& job, int worker);
    // Under `lock` (on jobs_mutex_): while waiting() holds, runs the jobs take_job(own, min_depth)
    // gives (counted in busy_ if counts_busy), and waits for more when there is none. The one
    // helping loop of joining, waiting for setup and waiting for the end.
    void help_while(std::unique_lock<std::mutex>& lock, int worker, const JobGroup* own, int min_depth,
                    bool counts_busy, const std::function<bool()>& waiting);
    // After its tasks, a worker takes other workers' jobs until every worker is done.
    void help_until_done(int worker);
    void poll_until_done(const int& running, std::mutex& mutex, std::condition_variable& changed,
                         const std::function<Progress()>& progress);
    // What the polling thread does at each wake-up, at `now`: the deadline, the end of grace, the
    // caller's cancel, and poll_ if `poll`.
    void check(std::chrono::steady_clock::time_point now, bool poll, const std::function<Progress()>& progress);
    // A loop of one worker, from its stop points: check() every inline_stride_ calls, a stride
    // that grows while checks come much more often than needed and drops back to 1 when a check
    // comes late, so that the clock costs nothing in hot loops and slow calls still poll.
    void check_inline();

    const int n_threads_;
    const Poll& poll_;
    const SharedStop* const shared_;
    const std::chrono::steady_clock::time_point start_;
    bool limited_;
    std::chrono::steady_clock::time_point deadline_;
    // The end of the grace, in the clock's ticks (max: none yet): set by the time limit when the
    // loop is made, or earlier by reach().
    std::atomic<std::chrono::steady_clock::rep> cut_at_{std::chrono::steady_clock::duration::max().count()};
    std::atomic<bool> stop_{false}, limit_reached_{false}, cut_{false};
    std::atomic<Limit> limit_{Limit::None};
    std::mutex error_mutex_;
    std::exception_ptr error_;
    std::mutex jobs_mutex_;
    std::condition_variable jobs_changed_;   // a job added or finished, a worker done, an error
    std::vector<Job> jobs_;                  // under jobs_mutex_: the jobs no worker has taken yet
    int busy_ = 0;                           // under jobs_mutex_: workers in a task or a job
    std::atomic<int> idle_{0};               // workers waiting for a job
    // A loop of one worker, run on the calling thread: its progress() while it runs, the calls
    // to stop_point() between two checks, those left before the next, when it last checked and
    // when it next polls (every kPollPeriod, as the polling thread of more workers does).
    const std::function<Progress()>* inline_progress_ = nullptr;
    int inline_stride_ = 1, inline_countdown_ = 1;
    std::chrono::steady_clock::time_point inline_checked_, next_poll_;
};

// Fork-join below the run loop's tasks: a task (or a job) hands work to idle workers as a group of
// jobs, then join() runs the jobs no worker has taken and, while others still run, helps with other
// groups' jobs. A job of depth d may use a worker's scratch for depths >= d only; a joining worker
// so takes only jobs at least as deep as its group, and never touches the scratch of the frames it
// suspends. (The deepest waiting group always progresses: its jobs are running or its own.)
// A job that throws Cut ends there; any other exception stops the loop, and join() throws
// Interrupted once every job of the group has returned.
class JobGroup {
  public:
    // The depth of jobs that use no worker's scratch: any waiting worker may run them.
    static constexpr int kNoScratch = 1 << 30;
    JobGroup(RunLoop& loop, int depth, std::vector<std::function<void(int)>> jobs);
    // Returns once every job has returned; `worker` is the calling worker's index.
    void join(int worker);
    // Never returns while a job of the group runs: the jobs refer to the caller's frame.
    ~JobGroup();
    JobGroup(const JobGroup&) = delete;
    JobGroup& operator=(const JobGroup&) = delete;

  private:
    friend class RunLoop;
    RunLoop& loop_;
    const int depth_;
    const bool optional_;   // handed out by OptionalWork
    const std::vector<std::function<void(int)>> jobs_;
    size_t unfinished_;   // under loop_.jobs_mutex_
};

// How many workers could share a piece of work now: those of the calling thread's run loop when
// one of them is idle, else 1.
int sharing_width();

// Runs body(0), ..., body(n - 1), on the idle workers of the calling thread's run loop too when
// there are some (as a JobGroup), else in order on this thread; returns once all have returned.
// The calls must use no worker's scratch (they may run on a worker that suspended its own work)
// and their result must not depend on their order.
void parallel_for(int64_t n, const std::function<void(int64_t)>& body);

// Runs work() on one worker while the calling thread polls: what a fit prepares before its search
// (presorting the features) stops on Ctrl-C too.
void run_polled(const Poll& poll, const std::function<void()>& work);

}  // namespace dpdt
