#include "instance/pg_connection.hpp"

#include <fmt/format.h>
#include <libpq-fe.h>

#include "instance/instance_error.hpp"

namespace opctl::instance {
namespace {

struct ResultCloser {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Result = std::unique_ptr<PGresult, ResultCloser>;

struct FreeMemory {
  void operator()(char* text) const { PQfreemem(text); }
};
using LibpqText = std::unique_ptr<char, FreeMemory>;

std::string result_error(const PGresult* result) {
  const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
  const char* primary = PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
  std::string message = primary != nullptr ? primary : PQresultErrorMessage(result);
  return state != nullptr ? fmt::format("{} (SQLSTATE {})", message, state) : message;
}

}  // namespace

std::string publishable_message(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    bool control = c < 0x20 || c == 0x7f;
    if (control && !out.empty() && out.back() == ' ') continue;
    out += control ? ' ' : static_cast<char>(c);
  }
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  if (out.size() > 500) out = out.substr(0, 497) + "...";
  return out;
}

void PgConnection::Closer::operator()(pg_conn* connection) const {
  PQfinish(connection);
}

PgConnection::PgConnection(const ConnectionSettings& settings, const std::string& what) : what_(what) {
  std::string options;
  if (settings.statement_timeout.count() > 0)
    options += fmt::format("-c statement_timeout={} ", settings.statement_timeout.count());
  if (settings.local_commit) options += "-c synchronous_commit=local";
  std::vector<std::pair<std::string, std::string>> pairs = {
      {"host", settings.host},
      {"port", std::to_string(settings.port)},
      {"user", settings.user},
      {"dbname", settings.database},
      {"application_name", settings.application_name},
      {"connect_timeout", std::to_string(settings.connect_timeout.count())},
      {"options", options},
      // A peer that vanished (a partition, a dead node) is noticed in seconds, not at TCP's minutes.
      {"keepalives", "1"},
      {"keepalives_idle", "2"},
      {"keepalives_interval", "1"},
      {"keepalives_count", "3"},
      {"tcp_user_timeout", "5000"},
  };
  if (!settings.passfile.empty()) pairs.emplace_back("passfile", settings.passfile);
  if (!settings.sslmode.empty()) pairs.emplace_back("sslmode", settings.sslmode);
  if (!settings.sslrootcert.empty()) pairs.emplace_back("sslrootcert", settings.sslrootcert);
  std::vector<const char*> keywords;
  std::vector<const char*> values;
  for (const auto& [keyword, value] : pairs) {
    keywords.push_back(keyword.c_str());
    values.push_back(value.c_str());
  }
  keywords.push_back(nullptr);
  values.push_back(nullptr);
  connection_.reset(PQconnectdbParams(keywords.data(), values.data(), 0));
  if (!connection_) throw InstanceError(fmt::format("cannot connect to {}: out of memory", what_));
  if (PQstatus(connection_.get()) != CONNECTION_OK)
    throw InstanceError(fmt::format("cannot connect to {}: {}", what_,
                                    publishable_message(PQerrorMessage(connection_.get()))));
}

PgConnection::PgConnection(PgConnection&&) noexcept = default;
PgConnection& PgConnection::operator=(PgConnection&&) noexcept = default;
PgConnection::~PgConnection() = default;

std::vector<Row> PgConnection::query(const std::string& sql, const std::vector<std::string>& parameters) {
  return table(sql, parameters).rows;
}

Table PgConnection::table(const std::string& sql, const std::vector<std::string>& parameters) {
  std::vector<const char*> values;
  for (const auto& parameter : parameters)
    values.push_back(parameter.c_str());
  Result result(PQexecParams(connection_.get(), sql.c_str(), static_cast<int>(values.size()), nullptr,
                             values.empty() ? nullptr : values.data(), nullptr, nullptr, 0));
  if (!result) throw InstanceError(fmt::format("a query on {} failed: out of memory", what_));
  ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
    std::string message = PQstatus(connection_.get()) == CONNECTION_OK
                              ? result_error(result.get())
                              : std::string(PQerrorMessage(connection_.get()));
    throw InstanceError(fmt::format("a query on {} failed: {}", what_, publishable_message(message)));
  }
  Table out;
  std::vector<Row>& rows = out.rows;
  int row_count = PQntuples(result.get());
  int field_count = PQnfields(result.get());
  for (int field = 0; field < field_count; ++field)
    out.columns.emplace_back(PQfname(result.get(), field));
  rows.reserve(row_count);
  for (int row = 0; row < row_count; ++row) {
    Row fields;
    fields.reserve(field_count);
    for (int field = 0; field < field_count; ++field)
      fields.emplace_back(PQgetisnull(result.get(), row, field) ? "" : PQgetvalue(result.get(), row, field));
    rows.push_back(std::move(fields));
  }
  return out;
}

std::string PgConnection::value(const std::string& sql, const std::vector<std::string>& parameters) {
  auto rows = query(sql, parameters);
  return rows.empty() || rows[0].empty() ? "" : rows[0][0];
}

std::string PgConnection::literal(const std::string& text) {
  LibpqText quoted(PQescapeLiteral(connection_.get(), text.data(), text.size()));
  if (!quoted) throw InstanceError(fmt::format("cannot quote a value for {}", what_));
  return quoted.get();
}

std::string PgConnection::identifier(const std::string& name) {
  LibpqText quoted(PQescapeIdentifier(connection_.get(), name.data(), name.size()));
  if (!quoted) throw InstanceError(fmt::format("cannot quote a name for {}", what_));
  return quoted.get();
}

std::string PgConnection::scram_verifier(const std::string& password, const std::string& user) {
  LibpqText verifier(
      PQencryptPasswordConn(connection_.get(), password.c_str(), user.c_str(), "scram-sha-256"));
  if (!verifier)
    throw InstanceError(fmt::format("cannot compute the password verifier of role {} on {}: {}", user, what_,
                                    publishable_message(PQerrorMessage(connection_.get()))));
  return verifier.get();
}

}  // namespace opctl::instance
