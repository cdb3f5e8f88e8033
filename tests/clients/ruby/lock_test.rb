# redis-rb (Debian's ruby-redis 4.8.0) against redis-server and warden: the single-node lock
# as Ruby code writes it, SET NX PX to acquire, compare-and-delete by EVAL and EVALSHA to
# release. Every test runs once per server (LockTestRedisServer, LockTestWarden).
#
# Run by tests/clients/run.sh, which exports REDIS_PORTS and WARDEN_PORTS; JUNIT_OUT, when set,
# names a JUnit XML file to write the results to.
require "digest/sha1"
require "minitest"
require "redis"

RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then " \
          "return redis.call('del', KEYS[1]) else return 0 end"
EXTEND = "if redis.call('get', KEYS[1]) == ARGV[1] then " \
         "return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end"
NOSCRIPT = "NOSCRIPT No matching script. Please use EVAL."

module LockScenarios
  def setup
    @r = Redis.new(port: self.class::PORT, timeout: 10)
    @r.flushall
    @r.script(:flush)
    @other = Redis.new(port: self.class::PORT, timeout: 10) # another process's connection
  end

  def teardown
    @r.close
    @other.close
  end

  def assert_pttl_within(key, low, high)
    pttl = @r.pttl(key)
    assert_operator pttl, :>, low
    assert_operator pttl, :<=, high
  end

  def test_set_nx_px_acquires_once_and_refuses_a_second_holder
    assert_equal true, @r.set("lock:res", "tok-a", nx: true, px: 30_000)
    assert_equal false, @other.set("lock:res", "tok-b", nx: true, px: 30_000)
    assert_equal "tok-a", @r.get("lock:res")
    assert_pttl_within("lock:res", 29_000, 30_000)
    assert_equal 30, @r.ttl("lock:res")
  end

  def test_set_nx_ex_and_nx_without_ttl
    assert_equal true, @r.set("lock:ex", "tok-a", nx: true, ex: 10)
    assert_equal 10, @r.ttl("lock:ex")
    assert_equal true, @r.set("lock:forever", "tok-a", nx: true)
    assert_equal(-1, @r.ttl("lock:forever"))
    assert_equal false, @other.set("lock:forever", "tok-b", nx: true, px: 100)
    assert_equal(-1, @r.ttl("lock:forever"))
  end

  def test_expired_lock_is_taken_by_the_next_client
    assert_equal true, @r.set("lock:res", "tok-a", nx: true, px: 100)
    sleep 0.25
    assert_nil @r.get("lock:res")
    assert_equal true, @other.set("lock:res", "tok-b", nx: true, px: 30_000)
    assert_equal "tok-b", @r.get("lock:res")
  end

  def test_compare_and_delete_by_eval
    @r.set("lock:res", "tok-a", nx: true, px: 30_000)
    assert_equal 0, @other.eval(RELEASE, keys: ["lock:res"], argv: ["tok-b"])
    assert_equal "tok-a", @r.get("lock:res")
    assert_pttl_within("lock:res", 29_000, 30_000)

    assert_equal 1, @r.eval(RELEASE, keys: ["lock:res"], argv: ["tok-a"])
    assert_equal 0, @r.exists("lock:res")
    assert_equal 0, @r.eval(RELEASE, keys: ["lock:res"], argv: ["tok-a"])
  end

  def test_compare_and_delete_by_evalsha
    sha = @r.script(:load, RELEASE)
    assert_equal Digest::SHA1.hexdigest(RELEASE), sha
    assert_equal true, @other.script(:exists, sha)
    assert_equal [true, false], @r.script(:exists, [sha, "0" * 40])

    @r.set("lock:res", "tok-a", nx: true, px: 30_000)
    assert_equal 0, @other.evalsha(sha, keys: ["lock:res"], argv: ["tok-b"])
    assert_equal "tok-a", @r.get("lock:res")
    assert_equal 1, @r.evalsha(sha, keys: ["lock:res"], argv: ["tok-a"])
    assert_nil @r.get("lock:res")
  end

  def test_evalsha_of_an_unknown_script_raises_noscript
    error = assert_raises(Redis::CommandError) do
      @r.evalsha("0" * 40, keys: ["lock:res"], argv: ["tok-a"])
    end
    assert_equal NOSCRIPT, error.message
  end

  def test_script_flush_forgets_loaded_scripts
    sha = @r.script(:load, RELEASE)
    assert_equal "OK", @r.script(:flush)
    assert_equal false, @r.script(:exists, sha)
    error = assert_raises(Redis::CommandError) do
      @r.evalsha(sha, keys: ["lock:res"], argv: ["tok-a"])
    end
    assert_equal NOSCRIPT, error.message
    # EVAL of the same body caches it again under the same sha.
    assert_equal 0, @r.eval(RELEASE, keys: ["lock:res"], argv: ["tok-a"])
    assert_equal true, @r.script(:exists, sha)
  end

  def test_old_owner_cannot_release_a_lock_taken_after_expiry
    @r.set("lock:res", "tok-a", nx: true, px: 100)
    sleep 0.25
    assert_equal true, @other.set("lock:res", "tok-b", nx: true, px: 30_000)
    assert_equal 0, @r.eval(RELEASE, keys: ["lock:res"], argv: ["tok-a"])
    assert_equal 0, @r.eval(EXTEND, keys: ["lock:res"], argv: ["tok-a", "60000"])
    assert_equal "tok-b", @r.get("lock:res")
    assert_pttl_within("lock:res", 29_000, 30_000)
  end

  def test_owner_extends_by_eval
    @r.set("lock:res", "tok-a", nx: true, px: 1_000)
    assert_equal 1, @r.eval(EXTEND, keys: ["lock:res"], argv: ["tok-a", "60000"])
    assert_pttl_within("lock:res", 59_000, 60_000)
  end

  def test_server_errors_raise_with_redis_texts
    error = assert_raises(Redis::CommandError) { @r.set("lock:res", "x", px: 0) }
    assert_equal "ERR invalid expire time in 'set' command", error.message
    error = assert_raises(Redis::CommandError) { @r.set("lock:res", "x", nx: true, xx: true) }
    assert_equal "ERR syntax error", error.message
    error = assert_raises(Redis::CommandError) do
      @r.eval("return redis.call('incr', KEYS[1])", keys: [], argv: [])
    end
    assert_match(/\AERR /, error.message)
    assert_equal 0, @r.exists("lock:res")
  end

  def test_pipelined_acquires_answer_in_order
    replies = @r.pipelined do |pipe|
      pipe.set("lock:p", "tok-a", nx: true, px: 30_000)
      pipe.set("lock:p", "tok-b", nx: true, px: 30_000)
      pipe.get("lock:p")
      pipe.del("lock:p")
    end
    assert_equal [true, false, "tok-a", 1], replies
  end
end

class LockTestRedisServer < Minitest::Test
  LABEL = "ruby-redis 4.8.0 [redis-server]"
  PORT = Integer(ENV.fetch("REDIS_PORTS").split.first)
  include LockScenarios
end

class LockTestWarden < Minitest::Test
  LABEL = "ruby-redis 4.8.0 [warden]"
  PORT = Integer(ENV.fetch("WARDEN_PORTS").split.first)
  include LockScenarios
end

JUNIT_SUITE = "ruby-redis"
require_relative "junit_reporter"

Minitest.autorun
