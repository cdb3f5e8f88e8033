// SUBSCRIBE and the other pub/sub commands, PUBLISH, SPUBLISH and PUBSUB. The registry and the
// delivery of messages are in server/pubsub.h.
#include "server/command_table.h"
#include "server/errors.h"
#include "server/transaction.h"
#include "storage/glob.h"

namespace warden::server {
namespace {

using Kind = PubSub::Kind;

// A (un)subscribe confirmation: an array in RESP2, a push frame in RESP3, with the client's count
// of channels and patterns (shard channels are counted apart). A null name answers an
// unsubscribe-all that found nothing to drop.
void Confirm(CommandContext& ctx, Kind kind, std::string_view verb, const std::string_view* name) {
  const Session& s = ctx.session;
  ctx.reply.Raw(ctx.reply.protocol() == 2 ? "*3\r\n" : ">3\r\n");
  ctx.reply.Bulk(verb);
  if (name != nullptr) {
    ctx.reply.Bulk(*name);
  } else {
    ctx.reply.Null();
  }
  ctx.reply.Integer(kind == Kind::kShard ? s.sub_shard_channels : s.sub_channels + s.sub_patterns);
}

void SubscribeAll(CommandContext& ctx, Kind kind, std::string_view verb) {
  for (std::size_t i = 1; i < ctx.argc(); ++i) {
    const std::string_view name = ctx.arg(i);
    ctx.server.pubsub.Subscribe(ctx.session, kind, name);
    Confirm(ctx, kind, verb, &name);
  }
}

// With names, one confirmation per name (subscribed or not); without, one per subscription
// dropped, or a single one with a null name if there was none.
void UnsubscribeAll(CommandContext& ctx, Kind kind, std::string_view verb) {
  PubSub& pubsub = ctx.server.pubsub;
  if (ctx.argc() > 1) {
    for (std::size_t i = 1; i < ctx.argc(); ++i) {
      const std::string_view name = ctx.arg(i);
      pubsub.Unsubscribe(ctx.session, kind, name);
      Confirm(ctx, kind, verb, &name);
    }
    return;
  }
  const std::vector<std::string> names = pubsub.SubscriptionsOf(ctx.session, kind);
  for (const std::string& name : names) {
    pubsub.Unsubscribe(ctx.session, kind, name);
    const std::string_view view = name;
    Confirm(ctx, kind, verb, &view);
  }
  if (names.empty()) Confirm(ctx, kind, verb, nullptr);
}

// PUBSUB CHANNELS / SHARDCHANNELS [pattern]
void ListChannels(CommandContext& ctx, Kind kind) {
  if (ctx.argc() > 3) {
    ctx.reply.Error({"ERR unknown subcommand or wrong number of arguments for '",
                     errors::CString(ctx.arg(1)).substr(0, 128), "'. Try PUBSUB HELP."});
    return;
  }
  const bool filtered = ctx.argc() == 3;
  const std::string_view pattern = filtered ? ctx.arg(2) : std::string_view();
  std::vector<std::string_view> names;
  ctx.server.pubsub.ForEachChannel(kind, [&](std::string_view name) {
    if (!filtered || storage::GlobMatch(pattern, name)) names.push_back(name);
  });
  ctx.reply.ArrayHeader(names.size());
  for (std::string_view name : names) ctx.reply.Bulk(name);
}

// PUBSUB NUMSUB / SHARDNUMSUB [channel ...]: a flat array in both protocols, as Redis.
void CountSubscribers(CommandContext& ctx, Kind kind) {
  ctx.reply.ArrayHeader((ctx.argc() - 2) * 2);
  for (std::size_t i = 2; i < ctx.argc(); ++i) {
    ctx.reply.Bulk(ctx.arg(i));
    ctx.reply.Integer(static_cast<std::int64_t>(ctx.server.pubsub.Subscribers(kind, ctx.arg(i))));
  }
}

void PubsubChannelsCommand(CommandContext& ctx) { ListChannels(ctx, Kind::kChannel); }
void PubsubShardchannelsCommand(CommandContext& ctx) { ListChannels(ctx, Kind::kShard); }
void PubsubNumsubCommand(CommandContext& ctx) { CountSubscribers(ctx, Kind::kChannel); }
void PubsubShardnumsubCommand(CommandContext& ctx) { CountSubscribers(ctx, Kind::kShard); }

void PubsubNumpatCommand(CommandContext& ctx) {
  ctx.reply.Integer(static_cast<std::int64_t>(ctx.server.pubsub.pattern_count()));
}

void PubsubHelpCommand(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CHANNELS [<pattern>]",
      "    Return the currently active channels matching a <pattern> (default: '*').",
      "NUMPAT",
      "    Return number of subscriptions to patterns.",
      "NUMSUB [<channel> ...]",
      "    Return the number of subscribers for the specified channels, excluding",
      "    pattern subscriptions(default: no channels).",
      "SHARDCHANNELS [<pattern>]",
      "    Return the currently active shard level channels matching a <pattern> (default: '*').",
      "SHARDNUMSUB [<shardchannel> ...]",
      "    Return the number of subscribers for the specified shard level channel(s)",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(ctx.reply, kLines);
}

// clang-format off
constexpr CommandSpec kPubsubTable[] = {
    {"pubsub|channels",      -2, kPubSub | kLoading | kStale, PubsubChannelsCommand,      0, 0, 0, "@pubsub @slow"},
    {"pubsub|numsub",        -2, kPubSub | kLoading | kStale, PubsubNumsubCommand,        0, 0, 0, "@pubsub @slow"},
    {"pubsub|numpat",         2, kPubSub | kLoading | kStale, PubsubNumpatCommand,        0, 0, 0, "@pubsub @slow"},
    {"pubsub|shardchannels", -2, kPubSub | kLoading | kStale, PubsubShardchannelsCommand, 0, 0, 0, "@pubsub @slow"},
    {"pubsub|shardnumsub",   -2, kPubSub | kLoading | kStale, PubsubShardnumsubCommand,   0, 0, 0, "@pubsub @slow"},
    {"pubsub|help",           2, kLoading | kStale,           PubsubHelpCommand,          0, 0, 0, "@slow"},
};
// clang-format on

}  // namespace

std::span<const CommandSpec> PubsubSubcommands() { return kPubsubTable; }

void SubscribeCommand(CommandContext& ctx) { SubscribeAll(ctx, Kind::kChannel, "subscribe"); }
void PsubscribeCommand(CommandContext& ctx) { SubscribeAll(ctx, Kind::kPattern, "psubscribe"); }
void SsubscribeCommand(CommandContext& ctx) {
  // Unlike SUBSCRIBE, which 7.0 lets EXEC run for compatibility, SSUBSCRIBE is refused to a
  // client that expects one reply per command.
  if (ctx.session.multi.executing) {
    ctx.reply.Error("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client");
    return;
  }
  SubscribeAll(ctx, Kind::kShard, "ssubscribe");
}

void UnsubscribeCommand(CommandContext& ctx) { UnsubscribeAll(ctx, Kind::kChannel, "unsubscribe"); }
void PunsubscribeCommand(CommandContext& ctx) {
  UnsubscribeAll(ctx, Kind::kPattern, "punsubscribe");
}
void SunsubscribeCommand(CommandContext& ctx) { UnsubscribeAll(ctx, Kind::kShard, "sunsubscribe"); }

// Messages go to replicas too (never to the append-only file), as Redis's do outside a
// cluster: Sentinel's hellos reach a replica's subscribers through its master.
void PublishCommand(CommandContext& ctx) {
  ctx.reply.Integer(static_cast<std::int64_t>(ctx.server.pubsub.Publish(ctx.arg(1), ctx.arg(2))));
  if (ctx.server.replication.feeding()) [[unlikely]] {
    ctx.server.replication.FeedCommand(ctx.session.db, ctx.args);
  }
}

void SpublishCommand(CommandContext& ctx) {
  ctx.reply.Integer(
      static_cast<std::int64_t>(ctx.server.pubsub.PublishShard(ctx.arg(1), ctx.arg(2))));
  if (ctx.server.replication.feeding()) [[unlikely]] {
    ctx.server.replication.FeedCommand(ctx.session.db, ctx.args);
  }
}

}  // namespace warden::server
