# The job classes of sidekiq_test.rb. The test requires this file to push jobs, and the real
# `sidekiq` process it starts loads it with `-r` to run them. Every job reports what it did by
# RPUSHing a JSON record to a list named by its first argument, in the server it runs against.
require "sidekiq"

Sidekiq.configure_server do |config|
  # Poll the schedule and retry sets every 0.5-1.5 s instead of every 5-15 s; setting the
  # average also skips the scheduler's fixed 10 s wait at startup (a random 0-5 s remains).
  config.options[:poll_interval_average] = 1
end

module SidekiqSuite
  def self.record(list, fields)
    Sidekiq.redis do |conn|
      conn.rpush(list, Sidekiq.dump_json(fields.merge("ran_at" => Time.now.to_f)))
    end
  end

  # Succeeds at once.
  class RecordJob
    include Sidekiq::Worker

    def perform(list, value)
      SidekiqSuite.record(list, "jid" => jid, "value" => value)
    end
  end

  # Fails on its first attempt, succeeds on the next. Sidekiq adds 0-9 s of jitter to any
  # retry delay, so the test retries it through the API rather than waiting for the poller.
  class FlakyJob
    include Sidekiq::Worker
    sidekiq_options retry: 3
    sidekiq_retry_in { 1 }

    def perform(list, counter)
      attempt = Sidekiq.redis { |conn| conn.incr(counter) }
      raise "attempt #{attempt} fails" if attempt == 1

      SidekiqSuite.record(list, "jid" => jid, "attempt" => attempt)
    end
  end

  # Always fails, and with no retries goes straight to the dead set.
  class DoomedJob
    include Sidekiq::Worker
    sidekiq_options retry: 0

    def perform(list)
      SidekiqSuite.record(list, "jid" => jid)
      raise ArgumentError, "doomed"
    end
  end
end
