# Sidekiq (Debian's ruby-sidekiq 6.4.1, on ruby-redis 4.8.0 and ruby-connection-pool 2.2.5)
# against redis-server and warden: jobs pushed with Sidekiq::Client wait in their queue until a
# real `sidekiq` process (/usr/bin/sidekiq, started per test by its PID and stopped with TERM)
# runs them; a failed job lands in the retry set and succeeds when retried through the API or
# by Sidekiq's poller once due; a job scheduled with `perform_in` waits in the schedule set
# until the poller moves it to its queue (the poller's EVALSHA of Sidekiq's ZRANGEBYSCORE/ZREM
# script); Sidekiq::Stats counts it all.
# The job classes are in sidekiq_workers.rb. Every test runs once per server
# (SidekiqTestRedisServer, SidekiqTestWarden).
#
# The servers are shared with other suites, so each test uses its own queue and key prefix and
# deletes only its own keys. Sidekiq's counters (stat:processed, stat:failed, the retry,
# schedule and dead sets) are global to a server: tests compare them before and after.
#
# Run by tests/clients/run.sh, which exports REDIS_PORTS and WARDEN_PORTS; JUNIT_OUT, when set,
# names a JUnit XML file to write the results to.
require "json"
require "logger"
require "minitest"
require "redis"
require "securerandom"
require "sidekiq"
require "sidekiq/api"
require "socket"
require "tmpdir"
require_relative "sidekiq_workers"

WORKERS = File.expand_path("sidekiq_workers.rb", __dir__)

Sidekiq.logger.level = Logger::WARN

module SidekiqScenarios
  def setup
    @id = SecureRandom.hex(6)
    @url = "redis://127.0.0.1:#{self.class::PORT}/0"
    @queue = "warden-test-#{@id}"
    @prefix = "sidekiq-test:#{@id}"
    @list = "#{@prefix}:records"
    @log = File.join(Dir.tmpdir, "sidekiq-test-#{@id}.log")
    @pid = nil
    @identity = nil
    Sidekiq.redis = { url: @url, size: 3 }
    @r = Redis.new(url: @url, timeout: 10)
  end

  def teardown
    kill_sidekiq if @pid
    Sidekiq::Queue.new(@queue).clear
    [Sidekiq::ScheduledSet, Sidekiq::RetrySet, Sidekiq::DeadSet].each do |set|
      set.new.scan(@queue).each(&:delete)
    end
    # The process's heartbeat hash outlives it by up to 60 s.
    keys = @r.scan_each(match: "#{@prefix}:*").to_a + [@identity].compact
    @r.del(keys) unless keys.empty?
    Sidekiq.redis_pool.shutdown(&:close)
    @r.close
    File.delete(@log) if File.exist?(@log) && passed?
  end

  def now
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end

  # Polls the block until it returns something truthy, and returns that; fails after timeout_s.
  def wait_for(what, timeout_s: 15)
    deadline = now + timeout_s
    loop do
      value = yield
      return value if value
      flunk "no #{what} within #{timeout_s} s; sidekiq's log:\n#{log_tail}" if now > deadline
      sleep 0.05
    end
  end

  def log_tail
    File.exist?(@log) ? File.readlines(@log).last(30).join : "(none)"
  end

  # The entry our sidekiq process keeps in the `processes` set (its heartbeat), or nil.
  def our_process
    Sidekiq::ProcessSet.new.find { |p| p["pid"] == @pid && p["hostname"] == Socket.gethostname }
  end

  def start_sidekiq
    @pid = Process.spawn({ "REDIS_URL" => @url }, "sidekiq", "-r", WORKERS, "-q", @queue,
                         "-c", "2", "-t", "5", in: File::NULL, out: @log, err: [:child, :out])
    process = wait_for("sidekiq process #{@pid} in Sidekiq::ProcessSet") { our_process }
    @identity = process.identity
    process
  end

  # TERM, as a deployment stops Sidekiq: it finishes its jobs, flushes its counters, removes its
  # heartbeat and exits 0.
  def stop_sidekiq
    Process.kill("TERM", @pid)
    _, status = wait_for("exit of sidekiq #{@pid} after TERM") { Process.wait2(@pid, Process::WNOHANG) }
    @pid = nil
    assert status.success?, "sidekiq exited with #{status.inspect}; its log:\n#{log_tail}"
  end

  # Teardown's stop, after a failed test: TERM, then KILL if sidekiq is still up 10 s later.
  def kill_sidekiq
    Process.kill("TERM", @pid)
    deadline = now + 10
    until Process.wait(@pid, Process::WNOHANG)
      if now > deadline
        Process.kill("KILL", @pid)
        Process.wait(@pid)
        break
      end
      sleep 0.05
    end
    @pid = nil
  end

  def records
    @r.lrange(@list, 0, -1).map { |json| JSON.parse(json) }
  end

  def test_pushed_jobs_wait_in_their_queue_until_sidekiq_runs_each_once
    jid_push = Sidekiq::Client.push("queue" => @queue, "class" => SidekiqSuite::RecordJob,
                                    "args" => [@list, "push"])
    jid_async = SidekiqSuite::RecordJob.set(queue: @queue).perform_async(@list, "perform_async")
    bulk_args = (1..40).map { |i| [@list, "bulk #{i}"] }
    jids_bulk = Sidekiq::Client.push_bulk("queue" => @queue, "class" => SidekiqSuite::RecordJob,
                                          "args" => bulk_args)
    assert_equal 40, jids_bulk.uniq.size

    queue = Sidekiq::Queue.new(@queue)
    assert_equal 42, queue.size
    assert_includes Sidekiq::Queue.all.map(&:name), @queue
    pushed = queue.find_job(jid_push)
    assert_equal "SidekiqSuite::RecordJob", pushed.klass
    assert_equal [@list, "push"], pushed.args
    assert_equal @queue, pushed.queue
    assert_equal [@list, "perform_async"], queue.find_job(jid_async).args
    assert_equal [@list, "bulk 40"], queue.find_job(jids_bulk.last).args
    assert_equal 0, @r.llen(@list)

    process = start_sidekiq
    assert_equal [@queue], process["queues"]
    assert_equal 2, process["concurrency"]
    wait_for("42 job records") { @r.llen(@list) >= 42 }
    stop_sidekiq

    assert_nil our_process
    assert_equal 0, queue.size
    ran = records
    assert_equal ([jid_push, jid_async] + jids_bulk).sort, ran.map { |r| r["jid"] }.sort
    assert_equal (["push", "perform_async"] + bulk_args.map(&:last)).sort,
                 ran.map { |r| r["value"] }.sort
  end

  def test_stats_count_processed_and_failed_jobs_queues_and_sets
    before = Sidekiq::Stats.new
    before.fetch_stats!
    3.times { |i| SidekiqSuite::RecordJob.set(queue: @queue).perform_async(@list, "job #{i}") }
    doomed = SidekiqSuite::DoomedJob.set(queue: @queue).perform_async(@list)
    SidekiqSuite::RecordJob.set(queue: @queue).perform_in(3600, @list, "in an hour")

    queued = Sidekiq::Stats.new
    assert_equal 4, queued.queues[@queue]
    assert_equal 4, queued.enqueued - before.enqueued
    assert_equal 1, queued.scheduled_size - before.scheduled_size
    assert_equal 0, queued.processed - before.processed

    start_sidekiq
    dead = wait_for("dead job #{doomed}") { Sidekiq::DeadSet.new.find_job(doomed) }
    wait_for("4 job records") { @r.llen(@list) >= 4 }
    stop_sidekiq # flushes the process's counters

    after = Sidekiq::Stats.new
    assert_equal 4, after.processed - before.processed
    assert_equal 1, after.failed - before.failed
    assert_equal 0, after.queues[@queue]
    assert_equal 0, after.enqueued - before.enqueued
    assert_equal 1, after.scheduled_size - before.scheduled_size
    assert_equal 0, after.retry_size - before.retry_size
    assert_equal 1, after.dead_size - before.dead_size
    assert_equal 4, records.size

    assert_equal "ArgumentError", dead["error_class"]
    assert_equal "doomed", dead["error_message"]
    assert_equal @queue, dead.queue
    assert_equal [@list], dead.args
  end

  def test_a_failed_job_waits_in_the_retry_set_and_succeeds_when_retried
    counter = "#{@prefix}:attempts"
    before = Sidekiq::Stats.new
    jid = SidekiqSuite::FlakyJob.set(queue: @queue).perform_async(@list, counter)
    start_sidekiq

    entry = wait_for("job #{jid} in the retry set") { Sidekiq::RetrySet.new.find_job(jid) }
    assert_equal "RuntimeError", entry["error_class"]
    assert_equal "attempt 1 fails", entry["error_message"]
    assert_equal 0, entry["retry_count"]
    assert_equal @queue, entry.queue
    # sidekiq_retry_in { 1 } plus Sidekiq's jitter of 0-9 s.
    delay_s = entry.score - entry["failed_at"]
    assert_operator delay_s, :>=, 1
    assert_operator delay_s, :<, 11
    assert_equal "1", @r.get(counter)
    assert_equal 0, @r.llen(@list)
    assert_equal 1, Sidekiq::Stats.new.retry_size - before.retry_size

    entry.retry
    record = wait_for("the retried job's record") { records.first }
    assert_equal jid, record["jid"]
    assert_equal 2, record["attempt"]
    assert_nil Sidekiq::RetrySet.new.find_job(jid)
    stop_sidekiq

    after = Sidekiq::Stats.new
    assert_equal 2, after.processed - before.processed
    assert_equal 1, after.failed - before.failed
    assert_equal 0, after.retry_size - before.retry_size
    assert_equal "2", @r.get(counter)
    assert_equal 1, records.size
  end

  def test_the_poller_moves_a_due_retry_back_to_its_queue
    counter = "#{@prefix}:attempts"
    jid = SidekiqSuite::FlakyJob.set(queue: @queue).perform_async(@list, counter)
    start_sidekiq
    entry = wait_for("job #{jid} in the retry set") { Sidekiq::RetrySet.new.find_job(jid) }

    # Due now instead of in 1-10 s (ZINCRBY by the difference), at least 1 s before the poller
    # could have taken it on its own; the poller's script pops it.
    entry.reschedule(Time.now.to_f)
    record = wait_for("the retried job's record") { records.first }
    assert_equal jid, record["jid"]
    assert_equal 2, record["attempt"]
    assert_nil Sidekiq::RetrySet.new.find_job(jid)
    stop_sidekiq
    assert_equal "2", @r.get(counter)
    assert_equal 1, records.size
  end

  def test_a_job_scheduled_with_perform_in_runs_once_it_is_due
    start_sidekiq
    before = Sidekiq::Stats.new
    pushed_at = Time.now.to_f
    jid = SidekiqSuite::RecordJob.set(queue: @queue).perform_in(2, @list, "scheduled")

    entry = Sidekiq::ScheduledSet.new.find_job(jid)
    assert_in_delta pushed_at + 2, entry.score, 0.5
    assert_equal [@list, "scheduled"], entry.args
    assert_equal @queue, entry.queue
    assert_equal 1, Sidekiq::Stats.new.scheduled_size - before.scheduled_size
    assert_equal 0, Sidekiq::Queue.new(@queue).size

    record = wait_for("the scheduled job's record") { records.first }
    assert_equal jid, record["jid"]
    assert_operator record["ran_at"], :>=, entry.score
    assert_nil Sidekiq::ScheduledSet.new.find_job(jid)
    assert_equal 0, Sidekiq::Stats.new.scheduled_size - before.scheduled_size
    stop_sidekiq
    assert_equal 1, records.size
  end
end

class SidekiqTestRedisServer < Minitest::Test
  LABEL = "sidekiq 6.4.1 [redis-server]"
  PORT = Integer(ENV.fetch("REDIS_PORTS").split.first)
  include SidekiqScenarios
end

class SidekiqTestWarden < Minitest::Test
  LABEL = "sidekiq 6.4.1 [warden]"
  PORT = Integer(ENV.fetch("WARDEN_PORTS").split.first)
  include SidekiqScenarios
end

JUNIT_SUITE = "sidekiq"
require_relative "junit_reporter"

Minitest.autorun
