#include "server/commands/debug_fault_commands.h"

#include <string>

#include "protocol/request_parser.h"
#include "server/debug/debug_controls.h"
#include "server/debug/faults.h"
#include "server/errors.h"
#include "server/server_state.h"

namespace warden::server {
namespace {

void ReplyOptional(protocol::ReplyWriter& reply, const std::optional<std::string>& value) {
  if (value) {
    reply.Bulk(*value);
  } else {
    reply.Null();
  }
}

// DEBUG FAULT ADD [COMMAND name] [KEY glob] [CLIENT-NAME glob] [AFTER n] [TIMES n]
//                 [PROBABILITY p] ERROR <text> | DELAY <ms> [JITTER <ms>] | DROP | DROP-AFTER
void FaultAdd(CommandContext& ctx) {
  FaultRule rule;
  if (auto error = ParseFaultRule(ctx.args.subspan(3), rule)) {
    ctx.reply.Error(*error);
    return;
  }
  const std::int64_t max = ctx.server.config.debug_fault_max_rules;
  if (static_cast<std::int64_t>(ctx.server.debug->faults.rules().size()) >= max) {
    ctx.reply.Error("ERR too many fault rules: " + std::to_string(max) +
                    " installed, the most debug-fault-max-rules allows");
    return;
  }
  ctx.reply.Integer(ctx.server.debug->faults.Add(std::move(rule)));
}

// One map per rule, in the order they are tried.
void FaultList(CommandContext& ctx) {
  const std::vector<FaultRule>& rules = ctx.server.debug->faults.rules();
  ctx.reply.ArrayHeader(rules.size());
  for (const FaultRule& rule : rules) {
    ctx.reply.MapHeader(11);
    ctx.reply.Bulk("id");
    ctx.reply.Integer(rule.id);
    ctx.reply.Bulk("command");
    ReplyOptional(ctx.reply, rule.command);
    ctx.reply.Bulk("key");
    ReplyOptional(ctx.reply, rule.key_glob);
    ctx.reply.Bulk("client-name");
    ReplyOptional(ctx.reply, rule.client_name_glob);
    ctx.reply.Bulk("after");
    ctx.reply.Integer(rule.after);
    ctx.reply.Bulk("times");
    ctx.reply.Integer(rule.times);
    ctx.reply.Bulk("probability");
    ctx.reply.Bulk(rule.probability_text);
    ctx.reply.Bulk("action");
    ctx.reply.Bulk(DescribeFaultAction(rule));
    ctx.reply.Bulk("matched");
    ctx.reply.Integer(rule.matched);
    ctx.reply.Bulk("hits");
    ctx.reply.Integer(rule.hits);
    ctx.reply.Bulk("remaining");
    ctx.reply.Integer(rule.times < 0 ? -1 : rule.times - rule.hits);
  }
}

void FaultDel(CommandContext& ctx) {
  std::int64_t id = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(3), id)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  ctx.reply.Integer(ctx.server.debug->faults.Remove(id) ? 1 : 0);
}

void FaultClear(CommandContext& ctx) {
  ctx.reply.Integer(static_cast<std::int64_t>(ctx.server.debug->faults.Clear()));
}

}  // namespace

void DebugFault(CommandContext& ctx) {
  const std::string_view sub = ctx.arg(2);
  if (ArgIs(sub, "add")) {
    FaultAdd(ctx);
  } else if (ArgIs(sub, "list") && ctx.argc() == 3) {
    FaultList(ctx);
  } else if (ArgIs(sub, "del") && ctx.argc() == 4) {
    FaultDel(ctx);
  } else if (ArgIs(sub, "clear") && ctx.argc() == 3) {
    FaultClear(ctx);
  } else {
    ctx.reply.Error({"ERR unknown subcommand or wrong number of arguments for 'FAULT ",
                     errors::CString(sub), "'. Try DEBUG HELP."});
  }
}

// DEBUG FAIL-NEXT <count> <error> [COMMAND <name>]: the rule [COMMAND name] TIMES count ERROR
// error, replacing the previous FAIL-NEXT's. The name is not checked, as before rules existed.
void DebugFailNext(CommandContext& ctx) {
  std::int64_t count = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(2), count) || count < 0) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  FaultRule rule;
  if (ctx.argc() == 6 && ArgIs(ctx.arg(4), "command")) {
    std::string& command = rule.command.emplace();
    for (char c : ctx.arg(5)) {
      command.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
    }
  } else if (ctx.argc() != 4) {
    ctx.reply.Error(errors::kSyntax);
    return;
  }
  rule.error = ctx.arg(3);
  // An error reply needs a code: add Redis's generic one if the text has none.
  if (rule.error.empty() || rule.error.find(' ') == std::string::npos ||
      !(rule.error[0] >= 'A' && rule.error[0] <= 'Z')) {
    rule.error.insert(0, "ERR ");
  }
  rule.times = count;
  FaultRules& faults = ctx.server.debug->faults;
  faults.ReplaceShorthand(faults.fail_next_id,
                          count > 0 ? std::optional<FaultRule>(std::move(rule)) : std::nullopt);
  ctx.reply.Ok();
}

// DEBUG REPLY-DELAY <ms>: the rule DELAY ms for every command, replacing the previous one's.
void DebugReplyDelay(CommandContext& ctx) {
  std::int64_t delay = 0;
  if (!protocol::ParseStrictInt64(ctx.arg(2), delay)) {
    ctx.reply.Error(errors::kNotInteger);
    return;
  }
  if (delay < 0) {
    ctx.reply.Error("ERR time can only move forward");
    return;
  }
  FaultRule rule;
  rule.action = FaultAction::kDelay;
  rule.delay_ms = delay;
  FaultRules& faults = ctx.server.debug->faults;
  faults.ReplaceShorthand(faults.reply_delay_id,
                          delay > 0 ? std::optional<FaultRule>(std::move(rule)) : std::nullopt);
  ctx.reply.Ok();
}

}  // namespace warden::server
