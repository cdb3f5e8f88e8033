# A minimal JUnit reporter for the Minitest suites, so tests/clients/summarize.py counts them with
# the others. A suite sets JUNIT_SUITE and gives each test class a LABEL ("client [server]")
# before requiring this file; JUNIT_OUT names the file to write.
module Minitest
  class JunitReporter < AbstractReporter
    def initialize(path)
      super()
      @path = path
      @results = []
    end

    def record(result)
      @results << result
    end

    def report
      esc = ->(s) { s.to_s.encode(xml: :text) }
      lines = [%(<?xml version="1.0" encoding="utf-8"?>),
               %(<testsuite name=#{JUNIT_SUITE.encode(xml: :attr)}>)]
      @results.each do |r|
        label = Object.const_get(r.klass)::LABEL
        head = %(  <testcase classname=#{label.encode(xml: :attr)} ) +
               %(name=#{r.name.encode(xml: :attr)})
        if r.skipped?
          lines << "#{head}><skipped/></testcase>"
        elsif r.failure
          lines << "#{head}><failure>#{esc.call(r.failure.message)}</failure></testcase>"
        else
          lines << "#{head}/>"
        end
      end
      lines << "</testsuite>"
      File.write(@path, lines.join("\n") + "\n")
    end
  end

  def self.plugin_junit_init(_options)
    reporter << JunitReporter.new(ENV["JUNIT_OUT"]) if ENV["JUNIT_OUT"]
  end
end
Minitest.extensions << "junit"
