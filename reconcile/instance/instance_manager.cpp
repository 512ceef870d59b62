#include "instance/instance_manager.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/wait.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <thread>

#include "instance/credentials_check.hpp"
#include "instance/instance_error.hpp"
#include "instance/postgres_settings.hpp"
#include "instance/wal_archive_owner.hpp"
#include "kinds/cluster/cluster_names.hpp"
#include "kinds/cluster/tls_certificates.hpp"
#include "process/child_process.hpp"

namespace opctl::instance {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

// A primary's current timeline: the first 8 hex digits of its current WAL
// file's name (pg_control lags until the next checkpoint). A standby's is
// the newest of: the WAL receiver's (while it streams), its last restartpoint's
// (which lags), and the timeline of the newest WAL segment it holds (which a
// standby that stopped streaming keeps: candidates compare timelines).
constexpr const char* k_primary_timeline_sql =
    "('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int";

// What a barman-cloud tool said when it failed: its last ERROR line (they end a failure with one), else its
// last line, on one line and short enough for an annotation.
std::string tool_failure(const std::string& tool, const process::ProcessResult& result) {
  if (result.timed_out) return tool + " did not finish within 60 s";
  if (result.exec_error != 0) return tool + " is not in the instance image";
  std::string last, last_error, line;
  std::istringstream lines(result.err + "\n" + result.out);
  while (std::getline(lines, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    last = line;
    if (line.find("ERROR") != std::string::npos) last_error = line;
  }
  std::string said = last_error.empty() ? last : last_error;
  for (char& c : said)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  if (said.size() > 300) said = said.substr(0, 300) + "...";
  return fmt::format("{} exited with status {}{}", tool, result.exit_code, said.empty() ? "" : ": " + said);
}

void write_private_file(const std::string& path, const std::string& content) {
  std::string temporary = path + ".new";
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) throw InstanceError("cannot write " + temporary);
    out << content;
  }
  fs::permissions(temporary, fs::perms::owner_read | fs::perms::owner_write);
  fs::rename(temporary, path);
}

// A pgpass field: ':' and '\' escaped.
std::string pgpass_field(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == ':' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

bool is_true(const std::string& field) {
  return field == "t";
}

bool is_empty_or_absent(const fs::path& directory) {
  std::error_code error;
  return !fs::exists(directory, error) || fs::is_empty(directory, error);
}

std::string utc_stamp() {
  std::time_t now = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&now, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &parts);
  return text;
}

}  // namespace

InstanceManager::InstanceManager(InstanceIdentity identity, InstanceEnvironment& environment,
                                 LeaseKeeper& lease, ManagerOptions options)
    : identity_(std::move(identity)),
      environment_(environment),
      lease_(lease),
      options_(options),
      tools_(identity_) {
  fs::create_directories(socket_dir(identity_));
  fs::permissions(socket_dir(identity_), fs::perms::owner_all);
}

bool InstanceManager::has_data() const {
  return fs::exists(fs::path(identity_.pgdata) / "PG_VERSION");
}

bool InstanceManager::data_is_standby() const {
  return fs::exists(fs::path(identity_.pgdata) / "standby.signal");
}

void InstanceManager::write_passfile(const Credentials& credentials) {
  if (passfile_credentials_ == credentials) return;
  write_private_file(passfile_path(identity_),
                     fmt::format("*:*:*:{}:{}\n*:*:*:{}:{}\n", k_replication_user,
                                 pgpass_field(credentials.replication_password), k_superuser,
                                 pgpass_field(credentials.superuser_password)));
  passfile_credentials_ = credentials;
}

bool InstanceManager::write_tls(const std::optional<TlsMaterial>& observed) {
  if (!observed || observed == written_tls_) return false;
  std::string problem = kinds::cluster::key_pair_problem(observed->certificate, observed->key);
  if (problem.empty() && !kinds::cluster::read_certificate(observed->ca))
    problem = "ca.crt holds no PEM certificate";
  if (!problem.empty()) {
    // A reload would keep the old files' context, a start would fail: the last good files stay.
    tls_problem_ = "the server certificate's Secret is not served: " + problem;
    return false;
  }
  tls_problem_.clear();
  fs::path directory = fs::path(tls_key_path(identity_)).parent_path();
  fs::create_directories(directory);
  fs::permissions(directory, fs::perms::owner_all, fs::perm_options::replace);
  // PostgreSQL refuses a key readable by others; owned by its user, written by its user here.
  write_private_file(tls_ca_path(identity_), observed->ca);
  write_private_file(tls_certificate_path(identity_), observed->certificate);
  write_private_file(tls_key_path(identity_), observed->key);
  written_tls_ = observed;
  return true;
}

void InstanceManager::choose_primary_verification() {
  primary_ca_file_.clear();
  primary_tls_problem_.clear();
  if (written_tls_) {
    PrimaryTlsCheck check = tools_.check_primary_tls(tls_ca_path(identity_));
    switch (check.result) {
      case PrimaryTls::verified:
      case PrimaryTls::unreachable:  // it will answer with the Cluster's certificate, as every instance
                                     // serves
        primary_ca_file_ = tls_ca_path(identity_);
        break;
      case PrimaryTls::not_offered:  // an instance manager from before TLS: encrypted once it serves TLS
        break;
      case PrimaryTls::unverified:
        primary_tls_problem_ =
            "replicating with sslmode=prefer, without verifying the primary's certificate: " + check.message;
        break;
    }
  }
  tools_.verify_primary_with(primary_ca_file_);
}

bool InstanceManager::write_hba(bool serves_replication) {
  serves_replication_ = serves_replication;
  HbaOptions options;
  if (inputs_) {
    options.user_rules = inputs_->configuration.pg_hba;
    options.superuser_access = inputs_->configuration.superuser_access;
    // Only once TLS is served: without it, rejecting plain TCP would stop replication too.
    options.require_ssl = inputs_->configuration.require_ssl && written_tls_.has_value();
    for (const auto& address : inputs_->addresses)
      options.instance_hosts.push_back(address.host);
  }
  std::string content = hba_rules(serves_replication, options);
  if (content == written_hba_ && fs::exists(hba_path(identity_))) return false;
  write_private_file(hba_path(identity_), content);
  written_hba_ = content;
  return true;
}

bool InstanceManager::write_conf() {
  std::string content = postgresql_conf(
      identity_, inputs_ ? inputs_->configuration.parameters : std::map<std::string, std::string>{},
      written_tls_.has_value());
  if (content == written_conf_ && fs::exists(config_path(identity_))) return false;
  write_private_file(config_path(identity_), content);
  written_conf_ = content;
  return true;
}

void InstanceManager::apply_configuration(PgConnection& db) {
  if (!reloaded_hash_.empty()) {
    // A reload is asynchronous: this is a later connection, forked after the postmaster reread the files.
    pending_restart_ = db.value(
        "SELECT coalesce(string_agg(name, ',' ORDER BY name), '') FROM pg_settings WHERE pending_restart");
    // A standby refuses to replay with less than its primary's value of these (PostgreSQL's hot standby
    // checks): lowered, the primary must restart first. The file's effective value is its last setting.
    pending_decrease_ = db.value(R"SQL(
SELECT coalesce(string_agg(s.name, ',' ORDER BY s.name), '')
  FROM pg_settings s
  JOIN LATERAL (SELECT f.setting FROM pg_file_settings f WHERE f.name = s.name
                 ORDER BY f.seqno DESC LIMIT 1) f ON true
 WHERE s.pending_restart
   AND s.name IN ('max_connections', 'max_prepared_transactions', 'max_locks_per_transaction',
                  'max_worker_processes', 'max_wal_senders')
   AND f.setting ~ '^[0-9]+$' AND f.setting::numeric < s.setting::numeric)SQL");
    // pg_file_settings parses the files now. A changed value that waits for a restart reads "setting could
    // not be applied" there too, as an invalid one does: only the latter is an error.
    config_problem_ = db.value(R"SQL(
SELECT coalesce(string_agg(coalesce(name || ' = ' || setting, sourcefile || ':' || sourceline) || ': ' || error,
                           '; ' ORDER BY seqno), '')
  FROM pg_file_settings
 WHERE error IS NOT NULL
   AND NOT (error = 'setting could not be applied'
            AND name IN (SELECT name FROM pg_settings WHERE pending_restart)))SQL");
    if (config_problem_.empty()) {
      loaded_hash_ = reloaded_hash_;
    } else {
      // Not loaded, and no restart asked for: PostgreSQL would not start with these files.
      config_problem_ = "spec.postgresql.parameters not applied: " + config_problem_;
      pending_restart_.clear();
      pending_decrease_.clear();
    }
    reloaded_hash_.clear();
  }
  std::string wanted = kinds::cluster::configuration_hash(inputs_->configuration);
  bool conf_changed = write_conf();
  bool hba_changed = write_hba(serves_replication_);
  // opctl cluster reload: files outside the configuration may have changed too. PostgreSQL reads the
  // certificate files again on a reload (a renewed certificate), keeping the old ones if the new cannot be
  // loaded.
  bool reload_asked = handled_reload_ && *handled_reload_ != inputs_->reload_request;
  handled_reload_ = inputs_->reload_request;
  if (!conf_changed && !hba_changed && !tls_reload_ && !reload_asked) return;
  tls_reload_ = false;
  db.query("SELECT pg_reload_conf()");
  reloaded_hash_ = wanted;
}

void InstanceManager::step() {
  server_.poll();
  if (!server_.running() && may_write_ && !lease_.holds() && server_.exited_unexpectedly()) {
    // The watchdog stopped it: the Lease was lost. That is a fence, not a crash: the
    // data follows the Lease's holder next (or serves again once this instance holds it again).
    may_write_ = false;
    lease_.release_deadline();
    server_.forget_exit();
  }
  if (!server_.running()) may_write_ = false;
  if (server_.exited_unexpectedly()) {
    // PostgreSQL went away without being asked to: let the container restart.
    fatal_ = "postgres " + server_.exit_description();
    ready_ = false;
    error_ = *fatal_;
    send_report(std::nullopt);
    return;
  }
  error_.clear();
  try {
    inputs_ = environment_.observe();
  } catch (const Error& failure) {
    // The API server is out of reach: keep serving in the role last seen
    // (there is no way to learn of a new one), and say so.
    error_ = std::string("cannot read the Cluster's state: ") + failure.what();
  }
  if (inputs_) {
    try {
      act(*inputs_);
    } catch (const Error& failure) {
      error_ = failure.what();
      ready_ = false;
    }
  } else {
    ready_ = false;
  }
  std::optional<LocalState> local;
  if (server_.running()) {
    try {
      local = read_local_state();
    } catch (const Error& failure) {
      ready_ = false;
      // A server that is still starting up answers nothing for a while; that is not an error yet.
      if (error_.empty() && SteadyClock::now() - started_at_ > 60s) error_ = failure.what();
    }
  }
  send_report(local);
}

std::optional<Credentials> InstanceManager::usable(const std::optional<Credentials>& observed) {
  if (!observed) return usable_credentials_;
  if (auto problem = credentials_problem(*observed, identity_.cluster)) {
    credentials_problem_ = *problem;
    return usable_credentials_;
  }
  credentials_problem_.clear();
  usable_credentials_ = observed;
  return observed;
}

void InstanceManager::act(Inputs inputs) {
  inputs.credentials = usable(inputs.credentials);
  if (inputs.credentials) write_passfile(*inputs.credentials);
  if (write_tls(inputs.tls) && server_.running()) tls_reload_ = true;
  lease_.set_timings(inputs.lease_timings);
  lease_problem_.clear();
  // First, whatever else fails: a writable server without the Lease stops now.
  if (server_.running() && may_write_ && !lease_.holds()) fence(lease_.problem());
  if (inputs.being_deleted) {
    // The kubelet sends SIGTERM next: nothing new is started meanwhile.
    ready_ = false;
    return;
  }
  // A value that cannot be read changes nothing: fencing an instance by a typo is as bad as unfencing it.
  fencing_problem_ = inputs.fencing_problem;
  if (fencing_problem_.empty()) fencing_ = inputs.fenced;
  inputs.fenced = fencing_;
  if (fencing_.fences(identity_.name)) {
    stay_fenced(inputs);
    return;
  }
  fenced_ = false;
  std::optional<LeaseRecord> lease = lease_.observe();
  if (!lease)
    throw InstanceError(fmt::format("waiting for the primary Lease {} (a pass creates it)",
                                    kinds::cluster::primary_lease(identity_.cluster)));
  bool holder_is_self = lease->holder == identity_.name;
  if (!has_data()) {
    if (server_.running()) throw InstanceError("the data directory went away under a running postgres");
    if (!inputs.credentials || !inputs.credentials->complete())
      throw InstanceError("waiting for the Cluster's Secrets (app, superuser, replication)");
    if (inputs.target_primary == identity_.name && (lease->holder.empty() || holder_is_self)) {
      // Refused before the Lease is taken: a refusal must not keep the Lease from a replica.
      if (auto refusal = initdb_refusal(inputs)) throw InstanceError(*refusal);
      if (!take_lease(*lease)) throw InstanceError(lease_problem_);
      bootstrap_primary(inputs);
    } else {
      choose_primary_verification();
      clone_replica();
    }
    return;
  }
  mark_volume_used();
  if (!server_.running()) {
    start(inputs, *lease);
    return;
  }
  {
    PgConnection db = tools_.connect_local();
    apply_configuration(db);
  }
  LocalState local = read_local_state();
  if (!local.in_recovery) {
    if (!lease_.holds()) fence("PostgreSQL accepts writes but this instance does not hold the primary Lease");
    may_write_ = true;
    if (!pending_decrease_.empty()) {
      restart_in_place(inputs, *lease);
      return;
    }
    const std::string& target = inputs.target_primary;
    if (!target.empty() && target != identity_.name && inputs.current_primary == identity_.name &&
        std::find(inputs.peers.begin(), inputs.peers.end(), target) != inputs.peers.end()) {
      hand_over_to(inputs, target);
      return;
    }
    switchover_problem_.clear();
    serve_primary(inputs, local);
    return;
  }
  // A standby: it promotes once it holds the Lease (handed over, or taken after it expired).
  if (lease_.holds() || (holder_is_self && take_lease(*lease))) {
    promote();
    return;
  }
  Candidacy candidacy = this->candidacy(inputs, *lease, local);
  if (candidacy.take && take_lease(*lease)) {
    promote();
    return;
  }
  serve_replica(local);
}

bool InstanceManager::take_lease(const LeaseRecord& seen) {
  std::string why;
  if (lease_.acquire(seen, why)) return true;
  lease_problem_ = "could not take the primary Lease: " + why;
  return false;
}

void InstanceManager::fence(const std::string& why) {
  ready_ = false;
  may_write_ = false;
  // Immediate: no commit may complete after the Lease could be someone else's.
  server_.stop(ShutdownMode::immediate, 10s);
  lease_.release_deadline();
  throw InstanceError(
      fmt::format("lost the primary Lease ({}): PostgreSQL stopped immediately; it comes back "
                  "as a replica of the Lease's holder, or as the primary if it takes the Lease again",
                  why.empty() ? "not renewed in time" : why));
}

void InstanceManager::stay_fenced(const Inputs& inputs) {
  ready_ = false;
  fenced_ = true;
  if (server_.running()) {
    // A clean shutdown: a primary's last WAL reaches the standbys that stream.
    // Its Lease stays held (renewed on the keeper's thread, never behind PostgreSQL).
    stop_at_once();
    may_write_ = false;
  }
  // A fenced primary keeps its Lease, as CloudNativePG's does: one whose
  // manager restarted (or whose Pod was recreated) takes it back, with the
  // rule start() follows, so that on unfencing the same primary returns
  // instead of a replica that saw the Lease expire. Standby data never does.
  if (lease_.holds() || !has_data() || data_is_standby()) return;
  std::optional<LeaseRecord> lease = lease_.observe();
  if (!lease) return;
  if (lease->holder == identity_.name || (lease->holder.empty() && inputs.target_primary == identity_.name))
    take_lease(*lease);
}

void InstanceManager::promote() {
  ready_ = false;
  may_write_ = true;
  primary_tls_problem_.clear();  // it follows nobody now
  // Waits up to 8 s, inside the statement timeout; a promotion still under way is seen on the next step.
  tools_.query("SELECT pg_promote(true, 8)");
  // Now a primary: it serves replication connections.
  write_hba(true);
  tools_.query("SELECT pg_reload_conf()");
  // pg_rewind on the old primary reads this server's pg_control to learn
  // its timeline, and the end-of-recovery checkpoint that writes it runs in
  // the background: until it is done pg_rewind sees the old timeline and
  // answers "no rewind required". Do it now, not seconds later.
  tools_.query("CHECKPOINT");
}

namespace {

std::optional<kinds::cluster::Lsn> furthest_position(const std::string& received,
                                                     const std::string& replayed) {
  auto a = kinds::cluster::Lsn::parse(received);
  auto b = kinds::cluster::Lsn::parse(replayed);
  if (a && b) return std::max(*a, *b);
  return a ? a : b;
}

}  // namespace

std::optional<InstanceManager::LocalState> InstanceManager::peer_state(const PeerAddress& peer) const {
  try {
    PgConnection db = tools_.connect_peer(peer.host, peer.port);
    return read_state(db);
  } catch (const Error&) {
    return std::nullopt;  // does not answer: it does not count
  }
}

Candidacy InstanceManager::candidacy(const Inputs& inputs, const LeaseRecord& lease,
                                     const LocalState& local) {
  CandidateView view;
  view.self = identity_.name;
  view.running_as_standby = local.in_recovery;
  view.timeline = std::atoi(local.timeline.c_str());
  view.position = furthest_position(local.received_lsn, local.replay_lsn);
  view.lease = lease;
  view.expired_for = lease_.expired_for();
  view.failover_delay = inputs.failover_delay;
  view.target_primary = inputs.target_primary;
  view.target_is_live_peer =
      std::find(inputs.peers.begin(), inputs.peers.end(), inputs.target_primary) != inputs.peers.end();
  view.fenced = inputs.fenced;
  view.hibernating = inputs.hibernation;
  // Nobody is asked while the Lease is held and fresh: that is every step of a healthy Cluster.
  if (!lease.holder.empty() && view.expired_for.count() == 0) return consider_candidacy(view);
  for (const auto& address : inputs.addresses) {
    PeerAnswer answer;
    answer.name = address.name;
    answer.reporting = address.reporting;
    if (auto state = peer_state(address)) {
      answer.answered = true;
      answer.in_recovery = state->in_recovery;
      answer.timeline = std::atoi(state->timeline.c_str());
      answer.position = furthest_position(state->received_lsn, state->replay_lsn);
    }
    view.peers.push_back(answer);
  }
  Candidacy candidacy = consider_candidacy(view);
  if (!candidacy.take) lease_problem_ = "a failover waits: " + candidacy.reason;
  return candidacy;
}

bool InstanceManager::received_past(const Inputs& inputs, const std::string& peer,
                                    const std::string& checkpoint) {
  auto wanted = kinds::cluster::Lsn::parse(checkpoint);
  auto address = std::find_if(inputs.addresses.begin(), inputs.addresses.end(),
                              [&](const PeerAddress& candidate) { return candidate.name == peer; });
  if (!wanted || address == inputs.addresses.end()) return false;
  auto state = peer_state(*address);
  if (!state || !state->in_recovery) return false;
  // Past the shutdown checkpoint record: it has every WAL record this server wrote.
  auto received = kinds::cluster::Lsn::parse(state->received_lsn);
  return received && *received > *wanted;
}

void InstanceManager::hand_over_to(const Inputs& inputs, const std::string& target) {
  PgConnection db = tools_.connect_local();
  if (db.value("SELECT count(*) FROM pg_stat_replication WHERE application_name = $1 AND state = 'streaming'",
               {target}) == "0") {
    switchover_problem_ = fmt::format("a switchover to {} waits until it streams from this primary", target);
    serve_primary(inputs, read_state(db));
    return;
  }
  ready_ = false;
  // Fast: open sessions end now; the walsenders send every record, the shutdown checkpoint included.
  if (!server_.stop(ShutdownMode::fast, 30s)) server_.stop(ShutdownMode::immediate, 10s);
  may_write_ = false;
  std::string checkpoint = tools_.checkpoint_location();
  bool received = false;
  for (int attempt = 0; attempt < 20 && !received; ++attempt) {
    received = received_past(inputs, target, checkpoint);
    if (!received) std::this_thread::sleep_for(500ms);
  }
  std::string why;
  if (received && lease_.hand_over(target, why)) {
    // Clean at the checkpoint the new primary has: it follows without a rewind.
    std::ofstream(fs::path(identity_.pgdata) / "standby.signal").close();
    switchover_problem_.clear();
    return;
  }
  // Still the holder: serve again rather than leave the Cluster without a primary.
  server_.start(postgres_command(identity_, false));
  started_at_ = SteadyClock::now();
  may_write_ = true;
  throw InstanceError(fmt::format(
      "the switchover to {} was called off ({}); this instance serves as the primary again", target,
      !received ? target + " did not receive the last WAL within 10s"
                : "could not hand over the Lease: " + why));
}

std::string InstanceManager::volume_marker() const {
  return (fs::path(identity_.pgdata).parent_path() / ".opctl-held-data").string();
}

void InstanceManager::mark_volume_used() {
  if (volume_marked_) return;
  if (!fs::exists(volume_marker()))
    write_private_file(volume_marker(), fmt::format("{} held data at {}\n", identity_.name, utc_stamp()));
  volume_marked_ = true;
}

std::optional<std::string> InstanceManager::initdb_refusal(const Inputs& inputs) const {
  std::string why;
  if (inputs.primary_recorded)
    why = "the Cluster already has a database (status.currentPrimary is set)";
  else if (fs::exists(volume_marker()))
    why = "this volume held a database before (" + volume_marker() + ")";
  else if (!is_empty_or_absent(identity_.pgdata))
    why = "the directory is not empty";
  else
    return std::nullopt;
  return fmt::format(
      "refusing to run initdb: {} has no PG_VERSION and {}; every file is kept. Put the data directory "
      "back, fail over to a replica, or restore the Cluster from a Backup: an empty database is never "
      "started in its place",
      identity_.pgdata, why);
}

void InstanceManager::bootstrap_primary(const Inputs& inputs) {
  if (auto refusal = initdb_refusal(inputs)) throw InstanceError(*refusal);
  // Into a side directory first: a half-done initdb is never mistaken for data.
  std::string building = identity_.pgdata + ".initdb";
  fs::remove_all(building);
  tools_.initdb(building, inputs.credentials->superuser_password);
  fs::remove(identity_.pgdata);  // empty, as initdb_refusal checked
  fs::rename(building, identity_.pgdata);
  synced_credentials_.reset();
  mark_volume_used();
}

std::string InstanceManager::set_aside(const std::string& why) const {
  std::string base = fmt::format("{}.{}-{}", identity_.pgdata, why, utc_stamp());
  std::string aside = base;
  for (int n = 2; fs::exists(aside); ++n)
    aside = fmt::format("{}-{}", base, n);
  fs::rename(identity_.pgdata, aside);
  return aside;
}

void InstanceManager::clone_replica() {
  std::string building = identity_.pgdata + ".clone";
  fs::remove_all(building);  // a clone that did not finish, never data of its own
  try {
    tools_.base_backup(building);
  } catch (const InstanceError& failure) {
    std::error_code ignored;
    fs::remove_all(building, ignored);
    std::string volume = fs::path(identity_.pgdata).parent_path().string();
    std::uintmax_t available =
        options_.free_bytes ? options_.free_bytes(volume) : fs::space(volume, ignored).available;
    if (ignored || available > (64u << 20)) throw;
    throw InstanceError(
        // First, so the 500 characters an error is published with always keep it.
        fmt::format("the volume is full ({} MiB free): it keeps the data directories set aside before "
                    "(\"{}.*\"), which opctl never deletes; remove those no longer needed. {}",
                    available >> 20, fs::path(identity_.pgdata).filename().string(), failure.what()));
  }
  std::ofstream(fs::path(building) / "standby.signal").close();
  // Data without PG_VERSION on a replica (a volume half-restored, a move cut short) is kept, not removed.
  if (!is_empty_or_absent(identity_.pgdata))
    set_aside("incomplete");
  else
    fs::remove(identity_.pgdata);
  fs::rename(building, identity_.pgdata);
  needs_rewind_ = false;
  mark_volume_used();
}

void InstanceManager::rewind_before_following() {
  // A primary promoted by hand or by an older manager may not have written
  // its new timeline to pg_control yet; pg_rewind would then skip a rewind
  // this data needs (see the CHECKPOINT after pg_promote).
  if (primary_answers() && !primary_checkpointed_on_its_timeline())
    throw InstanceError("waiting for the primary's first checkpoint on its new timeline before pg_rewind");
  // Rewound again and again, and still it cannot stream: the WAL it needs
  // is gone from the primary ("no rewind required" cannot bring it back).
  if (rewinds_without_streaming_ >= options_.rewinds_before_reclone)
    set_aside_to_clone("unstreamable",
                       fmt::format("could not stream from the primary after {} rewinds (the WAL it needs is "
                                   "gone from the primary?)",
                                   options_.rewinds_before_reclone));
  try {
    tools_.rewind();
    needs_rewind_ = false;
    rewind_failures_ = 0;
    ++rewinds_without_streaming_;
  } catch (const InstanceError& failure) {
    if (!primary_answers())
      throw InstanceError(std::string("waiting for the primary to rewind from: ") + failure.what());
    if (++rewind_failures_ < options_.rewinds_before_reclone) throw;
    // pg_rewind cannot make this data follow the primary.
    set_aside_to_clone("diverged", fmt::format("pg_rewind failed {} times ({})",
                                               options_.rewinds_before_reclone, failure.what()));
  }
}

void InstanceManager::set_aside_to_clone(const std::string& why, const std::string& reason) {
  std::string aside = set_aside(why);
  rewind_failures_ = 0;
  rewinds_without_streaming_ = 0;
  needs_rewind_ = false;
  throw InstanceError(fmt::format(
      "{}; the data directory was moved to {} and is cloned anew from the primary", reason, aside));
}

void InstanceManager::stop_at_once() {
  if (!server_.stop(ShutdownMode::fast, 60s)) server_.stop(ShutdownMode::immediate, 10s);
}

void InstanceManager::start(const Inputs& inputs, const LeaseRecord& lease) {
  if (!identity_.wal_archive_dir.empty()) fs::create_directories(identity_.wal_archive_dir);
  // The kubelet's fsGroup handling may have opened the volume to the group:
  // PostgreSQL refuses a data directory that is not 0700 (or 0750).
  fs::permissions(identity_.pgdata, fs::perms::owner_all, fs::perm_options::replace);
  // Data that ran as a primary starts writable only on the Lease's holder:
  // this instance after a restart (it still holds it, or holds it again),
  // or the Cluster's target when the Lease is free (a Cluster started again).
  bool as_primary = false;
  if (!data_is_standby() && !needs_rewind_) {
    bool may_take =
        lease.holder == identity_.name || (lease.holder.empty() && inputs.target_primary == identity_.name);
    as_primary = lease_.holds() || (may_take && take_lease(lease));
  }
  if (!as_primary) {
    choose_primary_verification();
    // Data that ran as a primary (no standby.signal) may hold WAL the new
    // primary never had: it is rewound before it may follow.
    if (!data_is_standby() || needs_rewind_) rewind_before_following();
    std::ofstream(fs::path(identity_.pgdata) / "standby.signal").close();
  }
  write_hba(as_primary);
  write_conf();
  std::vector<std::string> command = postgres_command(identity_, !as_primary, primary_ca_file_);
  // A standby whose last replayed primary values (pg_control) are above the spec's, e.g. a lowered
  // max_connections it has not replayed yet, would refuse to start: it starts with the primary's values
  // and asks for another restart, by which time it has replayed the lower ones.
  std::vector<std::string> raised;
  if (!as_primary)
    for (const auto& [name, value] : tools_.standby_floor(config_path(identity_))) {
      command.push_back("-c");
      command.push_back(name + "=" + value);
      raised.push_back(name);
    }
  server_.start(command);
  // A start loads the files as they are: nothing waits for a restart but what was raised above them.
  loaded_hash_ = kinds::cluster::configuration_hash(inputs.configuration);
  reloaded_hash_.clear();
  pending_restart_ = fmt::format("{}", fmt::join(raised, ","));
  pending_decrease_.clear();
  config_problem_.clear();
  may_write_ = as_primary;
  started_at_ = SteadyClock::now();
  not_streaming_since_.reset();
  ready_ = false;
}

void InstanceManager::restart_in_place(const Inputs& inputs, const LeaseRecord& lease) {
  ready_ = false;
  // Fast: sessions end, the standbys receive every record; the Lease stays held, so nobody fails over.
  stop_at_once();
  may_write_ = false;
  start(inputs, lease);
}

void InstanceManager::serve_primary(const Inputs& inputs, const LocalState& local) {
  PgConnection db = tools_.connect_local();
  if (inputs.credentials && inputs.credentials->complete() && synced_credentials_ != inputs.credentials)
    sync_roles(db, *inputs.credentials);
  sync_slots(db, inputs);
  sync_standby_names(db, inputs, local.timeline);
  if (!identity_.wal_archive_dir.empty()) check_wal_archive(db, inputs);
  if (!identity_.wal_archive_command.empty()) check_store_archive(inputs, local.timeline);
  if (store_backups_.enabled()) {
    // A base backup waits for its WAL to be archived (pg_backup_stop): none starts while the archive is not
    // usable.
    std::string blocked = !archive_problem_.empty() ? "the WAL archive is not usable: " + archive_problem_
                          : !fs::exists(archive_allowed_path(identity_))
                              ? std::string("the WAL archive is not checked yet")
                              : std::string();
    store_backups_.step(
        inputs.backup_requests,
        {"--host", socket_dir(identity_), "--port", std::to_string(identity_.port), "--user", k_superuser},
        blocked, SteadyClock::now());
  }
  read_replication(db);
  ready_ = synced_credentials_.has_value();
  // After opctl's own roles and database: a managed database may be owned by the application owner.
  if (ready_) managed_.step(db, inputs);
}

void InstanceManager::serve_replica(const LocalState& local) {
  if (local.streaming) {
    not_streaming_since_.reset();
    rewinds_without_streaming_ = 0;
    ready_ = true;
    return;
  }
  auto now = SteadyClock::now();
  if (!not_streaming_since_) not_streaming_since_ = now;
  bool primary_up = primary_answers();
  // With no primary to stream from (a failover under way) it still serves
  // reads from what it has; one that cannot follow a primary that answers does not.
  ready_ = !primary_up && rewinds_without_streaming_ == 0;
  if (now - *not_streaming_since_ < options_.stream_grace || !primary_up) return;
  ready_ = false;
  // The primary answers but this replica cannot stream from it: it has
  // diverged (WAL of a timeline the primary never had). Stop, rewind, follow.
  stop_at_once();
  needs_rewind_ = true;
  throw InstanceError("could not stream from the primary for " +
                      std::to_string(options_.stream_grace.count()) + "s while it answers: rewinding");
}

void InstanceManager::sync_roles(PgConnection& db, const Credentials& credentials) {
  auto missing_role = [&](const std::string& role) {
    return db.value("SELECT count(*) FROM pg_roles WHERE rolname = $1", {role}) == "0";
  };
  // CREATE and ALTER ROLE take no parameters: names are quoted by libpq.
  if (missing_role(k_replication_user))
    db.query("CREATE ROLE " + db.identifier(k_replication_user) + " WITH LOGIN REPLICATION");
  if (missing_role(credentials.app_user))
    db.query("CREATE ROLE " + db.identifier(credentials.app_user) + " WITH LOGIN");
  // Passwords go as SCRAM verifiers computed here (never the password), with
  // statement logging off for the transaction, so not even the verifier
  // reaches the server log, as CloudNativePG does.
  auto set_password = [&](const std::string& role, const std::string& attributes,
                          const std::string& password) {
    db.query(fmt::format("ALTER ROLE {} WITH {}PASSWORD {}", db.identifier(role), attributes,
                         db.literal(db.scram_verifier(password, role))));
  };
  db.query("BEGIN");
  db.query("SET LOCAL log_statement = 'none'");
  db.query("SET LOCAL log_min_duration_statement = -1");
  db.query("SET LOCAL log_min_error_statement = 'panic'");
  set_password(k_superuser, "", credentials.superuser_password);
  set_password(k_replication_user, "LOGIN REPLICATION ", credentials.replication_password);
  set_password(credentials.app_user, "LOGIN ", credentials.app_password);
  db.query("COMMIT");
  // CREATE DATABASE cannot run inside a transaction block.
  if (db.value("SELECT count(*) FROM pg_database WHERE datname = $1", {credentials.app_database}) == "0")
    db.query(fmt::format("CREATE DATABASE {} OWNER {}", db.identifier(credentials.app_database),
                         db.identifier(credentials.app_user)));
  synced_credentials_ = credentials;
}

void InstanceManager::sync_slots(PgConnection& db, const Inputs& inputs) {
  std::set<std::string> wanted;
  for (const auto& peer : inputs.peers)
    wanted.insert(slot_name(peer));
  for (const auto& member : inputs.members)
    if (member != identity_.name) wanted.insert(slot_name(member));
  std::set<std::string> existing;
  std::set<std::string> active;
  for (const auto& row : db.query("SELECT slot_name, active FROM pg_replication_slots WHERE slot_type = "
                                  "'physical' AND starts_with(slot_name, $1)",
                                  {k_slot_prefix})) {
    existing.insert(row.at(0));
    if (is_true(row.at(1))) active.insert(row[0]);
  }
  for (const auto& slot : wanted)
    if (!existing.contains(slot)) db.query("SELECT pg_create_physical_replication_slot($1)", {slot});
  // A slot keeps WAL for its replica forever: one for an instance that is gone (no Pod, no volume) goes.
  for (const auto& slot : existing)
    if (!wanted.contains(slot) && !active.contains(slot))
      db.query("SELECT pg_drop_replication_slot($1)", {slot});
}

void InstanceManager::sync_standby_names(PgConnection& db, const Inputs& inputs,
                                         const std::string& timeline) {
  int streaming = 0;
  std::set<std::string> peers(inputs.peers.begin(), inputs.peers.end());
  for (const auto& row :
       db.query("SELECT application_name FROM pg_stat_replication WHERE state = 'streaming'"))
    if (peers.contains(row.at(0))) ++streaming;
  std::string wanted =
      synchronous_standby_names(inputs.peers, streaming, inputs.min_sync_replicas, inputs.max_sync_replicas);
  std::string current = db.value("SHOW synchronous_standby_names");
  SyncQuorum in_force = sync_quorum_of(current);
  if (current == wanted) {
    lease_.publish(in_force, timeline);
    return;
  }
  // A candidate judges by what the Lease says: it must cover every commit
  // acknowledged under the old and the new setting before the new one applies.
  SyncQuorum during = sync_quorum_union(in_force, sync_quorum_of(wanted));
  lease_.publish(during, timeline);
  if (!lease_.published(during) && !lease_.renew_now()) return;  // the next step tries again
  if (!lease_.published(during)) return;
  // ALTER SYSTEM takes no parameters: the value is quoted by libpq.
  db.query("ALTER SYSTEM SET synchronous_standby_names = " + db.literal(wanted));
  db.query("SELECT pg_reload_conf()");
}

void InstanceManager::read_replication(PgConnection& db) {
  // Values that change only when a standby comes or goes, a slot's WAL is
  // at risk, or a segment is archived: the report is rewritten that often,
  // not at every step (no slot position, no byte counts).
  static constexpr const char* k_replication_sql = R"SQL(
SELECT json_build_object(
  'slots', coalesce((SELECT json_agg(json_build_object('name', slot_name, 'active', active,
                                                       'walStatus', coalesce(wal_status, ''))
                                     ORDER BY slot_name)
                     FROM pg_replication_slots WHERE slot_type = 'physical'), '[]'::json),
  'standbys', coalesce((SELECT json_agg(json_build_object('name', application_name, 'state', state,
                                                          'syncState', sync_state)
                                        ORDER BY application_name)
                        FROM pg_stat_replication), '[]'::json),
  'archiver', (SELECT json_build_object(
                 'archived', archived_count,
                 'lastArchivedWal', coalesce(last_archived_wal, ''),
                 'lastArchivedTime', coalesce(to_char(last_archived_time AT TIME ZONE 'UTC',
                                                      'YYYY-MM-DD"T"HH24:MI:SS"Z"'), ''),
                 'failed', failed_count,
                 'lastFailedWal', coalesce(last_failed_wal, ''),
                 'lastFailedTime', coalesce(to_char(last_failed_time AT TIME ZONE 'UTC',
                                                    'YYYY-MM-DD"T"HH24:MI:SS"Z"'), ''))
               FROM pg_stat_archiver))::text)SQL";
  try {
    replication_ = db.value(k_replication_sql);
  } catch (const InstanceError&) {
    // Only for the report: a primary that cannot say it still serves.
  }
}

void InstanceManager::check_wal_archive(PgConnection& db, const Inputs& inputs) {
  ArchiveOwner self{identity_.namespace_name + "/" + identity_.cluster, inputs.cluster_uid,
                    db.value("SELECT system_identifier FROM pg_control_system()")};
  std::optional<ArchiveOwner> owner = read_archive_owner(identity_.wal_archive_dir);
  if (!owner) {
    write_archive_owner(identity_.wal_archive_dir, self);
    owner = self;
  }
  std::string allowed = archive_allowed_path(identity_);
  if (!owner->same_cluster(self)) {
    fs::remove(allowed);
    archive_problem_ = fmt::format(
        "the WAL archive {} belongs to {}, not to this Cluster: nothing is archived there, and WAL stays in "
        "pg_wal until spec.walArchive names a Backup of this Cluster's own (or that archive is moved away)",
        identity_.wal_archive_dir, owner->describe());
    return;
  }
  archive_problem_.clear();
  if (!fs::exists(allowed)) write_private_file(allowed, self.describe() + "\n");
}

// The object store holds no owner file opctl could trust as the directory
// archive does, so the claim lives in PGDATA: `opctl-wal-archive` names the
// Cluster (uid) that passed barman-cloud-check-wal-archive for this archive.
// A replica cloned from the primary carries it. Without it (a replica cloned
// before the first check, now promoted), the check runs from the current
// timeline: this Cluster's own WAL on earlier timelines does not fail it.
// With another Cluster's (a restore: its data directory is the source's), the
// check runs from timeline 1, so an archive holding any WAL is refused: a
// restored Cluster never archives into its source's archive.
void InstanceManager::check_store_archive(const Inputs& inputs, const std::string& timeline) {
  if (inputs.cluster_uid.empty()) return;  // not known yet: nothing is archived until it is
  std::string allowed = archive_allowed_path(identity_);
  std::string marker_path = identity_.pgdata + "/opctl-wal-archive";
  std::string claim = fmt::format("{} {}\n", inputs.cluster_uid, fmt::join(identity_.wal_archive_check, " "));
  std::string marker;
  if (std::ifstream in(marker_path); in) marker.assign(std::istreambuf_iterator<char>(in), {});
  if (marker == claim) {
    archive_problem_.clear();
    if (!fs::exists(allowed)) write_private_file(allowed, claim);
    return;
  }
  fs::remove(allowed);
  auto now = SteadyClock::now();
  if (store_check_after_ && now < *store_check_after_) return;
  // First the store itself: barman-cloud-backup-list fails on wrong keys, an endpoint it cannot reach and a
  // bucket that does not exist (the check below passes on a missing bucket, and archiving would create one,
  // without the policies its owner gives buckets).
  std::vector<std::string> probe = identity_.wal_archive_check;
  probe.front() = "barman-cloud-backup-list";
  probe.insert(probe.end() - 2, {"--format", "json"});
  std::vector<std::string> check = identity_.wal_archive_check;
  std::string from_timeline = marker.empty() && !timeline.empty() ? timeline : "1";
  check.insert(check.begin() + 1, {"--timeline", from_timeline});
  std::string destination = fmt::format("{} (server {})", identity_.wal_archive_check.end()[-2],
                                        identity_.wal_archive_check.back());
  for (const std::vector<std::string>* step : {&probe, &check}) {
    const std::vector<std::string>& argv = *step;
    process::ProcessOptions limits;
    limits.timeout = std::chrono::seconds(60);
    limits.max_output = std::size_t{1} << 20;
    process::ProcessResult result = process::run_process(argv, limits);
    if (result.exit_code == 0) continue;
    store_check_after_ = now + std::chrono::minutes(1);
    archive_problem_ = fmt::format(
        "the WAL archive {} cannot be used: {}{}; nothing is archived, and WAL stays in pg_wal (checked "
        "again "
        "in a minute)",
        destination, tool_failure(argv.front(), result),
        step == &check && !marker.empty() ? " (this data directory was another Cluster's: a restored Cluster "
                                            "never archives where its source's WAL is)"
                                          : "");
    return;
  }
  write_private_file(marker_path, claim);
  write_private_file(allowed, claim);
  archive_problem_.clear();
  store_check_after_.reset();
}

void InstanceManager::reap_children() {
  while (true) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    if (!store_backups_.reaped(pid, status)) server_.reaped(pid, status);
  }
}

InstanceManager::LocalState InstanceManager::read_local_state() const {
  PgConnection db = tools_.connect_local();
  return read_state(db);
}

InstanceManager::LocalState InstanceManager::read_state(PgConnection& db) {
  auto rows = db.query(fmt::format(R"SQL(
SELECT pg_is_in_recovery(),
       CASE WHEN pg_is_in_recovery() THEN '' ELSE pg_current_wal_lsn()::text END,
       coalesce(pg_last_wal_receive_lsn()::text, ''),
       coalesce(pg_last_wal_replay_lsn()::text, ''),
       CASE WHEN pg_is_in_recovery()
            THEN greatest(coalesce((SELECT received_tli FROM pg_stat_wal_receiver), 0),
                          (pg_control_checkpoint()).timeline_id,
                          coalesce((SELECT ('x' || substr(max(name), 1, 8))::bit(32)::int FROM pg_ls_waldir()
                                    WHERE name ~ '^[0-9A-F]{{24}}$'), 0))::text
            ELSE ({})::text END,
       coalesce((SELECT status = 'streaming' FROM pg_stat_wal_receiver), false))SQL",
                                   k_primary_timeline_sql));
  if (rows.empty() || rows[0].size() < 6) throw InstanceError("the instance-state query returned nothing");
  const Row& row = rows[0];
  LocalState state;
  state.in_recovery = is_true(row[0]);
  state.current_lsn = row[1];
  state.received_lsn = row[2];
  state.replay_lsn = row[3];
  state.timeline = row[4];
  state.streaming = is_true(row[5]);
  return state;
}

bool InstanceManager::primary_answers() const {
  try {
    auto rows = tools_.query_primary("SELECT pg_is_in_recovery()");
    return !rows.empty() && !rows[0].empty() && rows[0][0] == "f";
  } catch (const InstanceError&) {
    return false;
  }
}

bool InstanceManager::primary_checkpointed_on_its_timeline() const {
  auto rows = tools_.query_primary(
      fmt::format("SELECT (pg_control_checkpoint()).timeline_id = {}", k_primary_timeline_sql));
  return !rows.empty() && !rows[0].empty() && rows[0][0] == "t";
}

void InstanceManager::send_report(const std::optional<LocalState>& local) {
  InstanceReport report;
  report.error = published_error();
  if (!server_.running() || !local) {
    report.role = fenced_ ? "fenced" : "stopped";
  } else if (local->in_recovery) {
    report.role = "replica";
    report.received_lsn = local->received_lsn;
    report.replay_lsn = local->replay_lsn;
    report.timeline = local->timeline;
    report.streaming = local->streaming;
  } else {
    report.role = "primary";
    report.current_lsn = local->current_lsn;
    report.timeline = local->timeline;
    report.replication = replication_;
  }
  // Whatever the role now: a backup Job waits for the outcome its primary last reported.
  report.backup_requests = store_backups_.report();
  if (report.role == "primary")
    report.managed = managed_.report();
  else
    managed_.forget();  // whoever is the primary next applies spec.managed anew
  if (report.role != "stopped") {
    report.config_hash = loaded_hash_;
    report.pending_restart = pending_restart_;
    report.pending_decrease = pending_decrease_;
  }
  report_ = report;
  try {
    environment_.report(report);
  } catch (const Error&) {
    // Reported on the next step; the instance's work does not wait for the API.
  }
}

std::string InstanceManager::published_error() const {
  std::string text = error_;
  for (const std::string* problem :
       {&credentials_problem_, &archive_problem_, &lease_problem_, &switchover_problem_, &fencing_problem_,
        &config_problem_, &tls_problem_, &primary_tls_problem_})
    if (!problem->empty()) text += (text.empty() ? "" : "; ") + *problem;
  // The passwords observed last and those in use, whichever a message might quote.
  if (inputs_ && inputs_->credentials) text = without_passwords(std::move(text), *inputs_->credentials);
  if (usable_credentials_) text = without_passwords(std::move(text), *usable_credentials_);
  return publishable_message(text);
}

void InstanceManager::shut_down(std::chrono::milliseconds smart_timeout,
                                std::chrono::milliseconds fast_timeout) {
  ready_ = false;
  if (server_.running()) {
    // Smart while it holds the Lease: nobody else can be the primary meanwhile.
    if (!server_.stop(ShutdownMode::smart, smart_timeout) && !server_.stop(ShutdownMode::fast, fast_timeout))
      server_.stop(ShutdownMode::immediate, 30s);
  }
  may_write_ = false;
  error_.clear();
  if (lease_.holds()) {
    // Freed, so that the furthest replica takes it now rather than after it
    // expires. Not handed to one by name: the replicas may be shutting down
    // too (a Cluster stopped for an upgrade), and one being deleted never
    // takes a free Lease.
    std::string why;
    if (!lease_.hand_over("", why)) error_ = "could not free the primary Lease: " + why;
  }
  send_report(std::nullopt);
}

}  // namespace opctl::instance
