#include "server/errors.h"

namespace warden::server::errors {

void UnknownCommand(protocol::ReplyWriter& reply, std::span<const std::string_view> args) {
  // Redis (commandCheckExistence) prints the name with "%.128s" and each argument as "'%.*s' "
  // while the argument text, quotes and spaces included, is under 128 bytes.
  const std::size_t mark = reply.BeginError();
  reply.Raw("ERR unknown command '");
  reply.Raw(CString(args[0]).substr(0, 128));
  reply.Raw("', with args beginning with: ");
  std::size_t written = 0;
  for (std::size_t i = 1; i < args.size() && written < 128; ++i) {
    const std::string_view arg = CString(args[i]).substr(0, 128 - written);
    reply.Raw("'");
    reply.Raw(arg);
    reply.Raw("' ");
    written += arg.size() + 3;
  }
  reply.EndError(mark);
}

namespace {

// "<prefix>'<sub>'. Try <COMMAND> HELP.", the subcommand cut at a NUL and at 128 bytes as
// Redis's %.128s does, the command upper-cased.
void SubcommandError(protocol::ReplyWriter& reply, std::string_view prefix,
                     std::string_view command, std::string_view sub) {
  const std::size_t mark = reply.BeginError();
  reply.Raw(prefix);
  reply.Raw(CString(sub).substr(0, 128));
  reply.Raw("'. Try ");
  for (char c : command) {
    const char upper = c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c;
    reply.Raw(std::string_view(&upper, 1));
  }
  reply.Raw(" HELP.");
  reply.EndError(mark);
}

}  // namespace

void UnknownSubcommand(protocol::ReplyWriter& reply, std::string_view container,
                       std::string_view sub) {
  SubcommandError(reply, "ERR unknown subcommand '", container, sub);
}

void SubcommandSyntax(protocol::ReplyWriter& reply, std::string_view command,
                      std::string_view sub) {
  SubcommandError(reply, "ERR unknown subcommand or wrong number of arguments for '", command, sub);
}

void WrongArity(protocol::ReplyWriter& reply, std::string_view fullname) {
  reply.Error({"ERR wrong number of arguments for '", fullname, "' command"});
}

void InvalidExpireTime(protocol::ReplyWriter& reply, std::string_view fullname) {
  reply.Error({"ERR invalid expire time in '", fullname, "' command"});
}

void UnsupportedOption(protocol::ReplyWriter& reply, std::string_view option) {
  reply.Error({"ERR Unsupported option ", CString(option)});
}

}  // namespace warden::server::errors
