#include "source/git_credentials.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/error.hpp"
#include "source/git_netrc.hpp"

namespace opctl::source {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void bad_file(const std::string& flag, const std::string& file, const std::string& why) {
  throw InvalidInputError({Problem{file, 0, "", flag + ": " + why}});
}

std::string read_file(const std::string& flag, const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) bad_file(flag, file, "cannot read file");
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

// The first line without its line ending and surrounding blanks.
std::string read_secret(const std::string& flag, const std::string& file) {
  std::string text = read_file(flag, file);
  text = text.substr(0, text.find_first_of("\r\n"));
  auto first = text.find_first_not_of(" \t");
  auto last = text.find_last_not_of(" \t");
  if (first == std::string::npos) bad_file(flag, file, "the file is empty");
  return text.substr(first, last - first + 1);
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

void add_candidate(GitAuth& auth, CredentialCandidate candidate) {
  if (!candidate.secret.empty()) auth.secrets.push_back(candidate.secret);
  auth.candidates.push_back(std::move(candidate));
}

CredentialCandidate userpass(std::string username, std::string secret, std::string description) {
  return {CredentialCandidate::Kind::userpass,
          std::move(username),
          std::move(secret),
          "",
          "",
          std::move(description)};
}

void plan_http(GitAuth& auth, const GitUrl& url, const GitCredentials& credentials,
               const AuthEnvironment& environment) {
  const std::string token_user = url.username.empty() ? k_token_username : url.username;
  if (!credentials.basic_auth_file.empty()) {
    std::string line = read_secret("--git-basic-auth-file", credentials.basic_auth_file);
    auto colon = line.find(':');
    if (colon == std::string::npos || colon == 0)
      bad_file("--git-basic-auth-file", credentials.basic_auth_file,
               "expected one line \"username:password\"");
    add_candidate(auth, userpass(line.substr(0, colon), line.substr(colon + 1),
                                 "username:password from --git-basic-auth-file"));
  } else if (!credentials.token_file.empty()) {
    add_candidate(auth, userpass(token_user, read_secret("--git-token-file", credentials.token_file),
                                 "token from --git-token-file"));
  } else if (!credentials.token.empty()) {
    add_candidate(auth, userpass(token_user, credentials.token, "token from OPCTL_GIT_TOKEN"));
  } else if (!url.password.empty()) {
    add_candidate(auth, userpass(url.username, url.password, "username:password in the URL"));
  } else if (std::ifstream netrc(environment.netrc_file); netrc && !url.host.empty()) {
    std::ostringstream text;
    text << netrc.rdbuf();
    if (auto entry = find_netrc_entry(text.str(), url.host); entry && !entry->password.empty())
      add_candidate(
          auth, userpass(entry->login, entry->password, environment.netrc_file + " entry for " + url.host));
  }
}

void plan_known_hosts(GitAuth& auth, const GitCredentials& credentials, const AuthEnvironment& environment) {
  auth.verify_host_key = !credentials.insecure_ignore_host_key;
  if (!auth.verify_host_key) return;
  std::vector<std::string> files;
  if (!credentials.known_hosts_file.empty()) {
    files.push_back(credentials.known_hosts_file);
    read_file("--git-known-hosts-file", credentials.known_hosts_file);  // must exist when named
  } else {
    files = {environment.home + "/.ssh/known_hosts", "/etc/ssh/ssh_known_hosts"};
  }
  for (const auto& file : files) {
    std::ifstream in(file);
    if (!in) continue;
    std::ostringstream text;
    text << in.rdbuf();
    auto entries = parse_known_hosts(text.str());
    auth.known_hosts.insert(auth.known_hosts.end(), entries.begin(), entries.end());
    auth.known_hosts_files.push_back(file);
  }
  if (auth.known_hosts_files.empty()) auth.known_hosts_files.push_back(files.front());
}

void plan_ssh(GitAuth& auth, const GitUrl& url, const GitCredentials& credentials,
              const AuthEnvironment& environment) {
  std::string user = url.username.empty() ? "git" : url.username;
  std::string passphrase;
  if (!credentials.ssh_passphrase_file.empty())
    passphrase = read_secret("--git-ssh-passphrase-file", credentials.ssh_passphrase_file);
  auto key_candidate = [&](const std::string& file, std::string description) {
    std::string public_key = fs::exists(file + ".pub") ? file + ".pub" : "";
    return CredentialCandidate{
        CredentialCandidate::Kind::ssh_key, user, passphrase, file, public_key, std::move(description)};
  };
  if (!credentials.ssh_key_file.empty()) {
    read_file("--git-ssh-key-file", credentials.ssh_key_file);
    add_candidate(auth, key_candidate(credentials.ssh_key_file, "key " + credentials.ssh_key_file));
  } else {
    if (environment.ssh_agent)
      add_candidate(auth, {CredentialCandidate::Kind::ssh_agent, user, "", "", "", "ssh-agent"});
    for (const char* name : {"id_ed25519", "id_ecdsa", "id_rsa"}) {
      std::string file = environment.home + "/.ssh/" + name;
      if (fs::exists(file)) add_candidate(auth, key_candidate(file, "key " + file));
    }
  }
  if (!url.password.empty()) add_candidate(auth, userpass(user, url.password, "password in the URL"));
  plan_known_hosts(auth, credentials, environment);
}

unsigned int credential_type(const CredentialCandidate& candidate) {
  switch (candidate.kind) {
    case CredentialCandidate::Kind::userpass:
      return GIT_CREDENTIAL_USERPASS_PLAINTEXT;
    case CredentialCandidate::Kind::ssh_key:
    case CredentialCandidate::Kind::ssh_agent:
      return GIT_CREDENTIAL_SSH_KEY;
  }
  return 0;
}

int make_credential(git_credential** out, const CredentialCandidate& candidate) {
  const char* secret = candidate.secret.empty() ? nullptr : candidate.secret.c_str();
  switch (candidate.kind) {
    case CredentialCandidate::Kind::userpass:
      return git_credential_userpass_plaintext_new(out, candidate.username.c_str(), candidate.secret.c_str());
    case CredentialCandidate::Kind::ssh_agent:
      return git_credential_ssh_key_from_agent(out, candidate.username.c_str());
    case CredentialCandidate::Kind::ssh_key:
      return git_credential_ssh_key_new(
          out, candidate.username.c_str(),
          candidate.public_key_file.empty() ? nullptr : candidate.public_key_file.c_str(),
          candidate.key_file.c_str(), secret);
  }
  return GIT_EUSER;
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string text;
  for (const auto& part : parts)
    text += (text.empty() ? "" : separator) + part;
  return text;
}

std::string no_credentials_hint(const GitUrl& url) {
  if (url.transport == GitTransport::ssh) return "give --git-ssh-key-file, or load a key into ssh-agent";
  return "give --git-token-file, --git-basic-auth-file or OPCTL_GIT_TOKEN, or add a ~/.netrc entry for " +
         url.host;
}

int stop(AuthSession& session, std::string failure, int code) {
  session.failure = std::move(failure);
  git_error_set_str(GIT_ERROR_CALLBACK, session.failure.c_str());
  return code;
}

int credentials_callback(git_credential** out, const char* /*url*/, const char* username_from_url,
                         unsigned int allowed, void* payload) {
  auto& session = *static_cast<AuthSession*>(payload);
  try {
    if (allowed & GIT_CREDENTIAL_USERNAME) {
      std::string user = username_from_url && *username_from_url ? username_from_url : session.url->username;
      return git_credential_username_new(out, user.empty() ? "git" : user.c_str());
    }
    const auto& candidates = session.auth->candidates;
    while (session.next_candidate < candidates.size()) {
      const auto& candidate = candidates[session.next_candidate++];
      if ((credential_type(candidate) & allowed) == 0) continue;
      session.tried.push_back(candidate.description);
      return make_credential(out, candidate);
    }
    if (session.tried.empty())
      return stop(session, "authentication required: " + no_credentials_hint(*session.url), GIT_EAUTH);
    std::string failure = "authentication rejected (tried " + join(session.tried, ", ") + ")";
    if (std::any_of(candidates.begin(), candidates.end(), [](const CredentialCandidate& candidate) {
          return candidate.kind == CredentialCandidate::Kind::ssh_key && candidate.secret.empty();
        }))
      failure += "; if the key has a passphrase, give --git-ssh-passphrase-file";
    return stop(session, failure, GIT_EAUTH);
  } catch (const std::exception& error) {
    return stop(session, error.what(), GIT_EUSER);
  }
}

int certificate_check_callback(git_cert* cert, int /*valid*/, const char* /*host*/, void* payload) {
  auto& session = *static_cast<AuthSession*>(payload);
  // TLS certificates: libgit2 has verified the chain against the CA store; keep its verdict.
  if (cert->cert_type != GIT_CERT_HOSTKEY_LIBSSH2) return GIT_PASSTHROUGH;
  if (!session.auth->verify_host_key) return 0;
  try {
    const auto* hostkey = reinterpret_cast<const git_cert_hostkey*>(cert);
    if ((hostkey->type & GIT_CERT_SSH_RAW) == 0)
      return stop(session, "host key verification failed: libgit2 did not provide the raw host key",
                  GIT_ECERTIFICATE);
    std::string problem =
        host_key_problem(*session.url, *session.auth, std::string(hostkey->hostkey, hostkey->hostkey_len));
    if (problem.empty()) return 0;
    session.host_key_rejected = true;
    return stop(session, problem, GIT_ECERTIFICATE);
  } catch (const std::exception& error) {
    return stop(session, error.what(), GIT_EUSER);
  }
}

}  // namespace

AuthEnvironment AuthEnvironment::from_process() {
  AuthEnvironment environment;
  environment.home = env_or("HOME", "");
  environment.netrc_file = env_or("NETRC", environment.home + "/.netrc");
  environment.ssh_agent = !env_or("SSH_AUTH_SOCK", "").empty();
  return environment;
}

GitAuth plan_auth(const GitUrl& url, const GitCredentials& credentials, const AuthEnvironment& environment) {
  GitAuth auth;
  if (url.transport == GitTransport::http || url.transport == GitTransport::https)
    plan_http(auth, url, credentials, environment);
  else if (url.transport == GitTransport::ssh)
    plan_ssh(auth, url, credentials, environment);
  return auth;
}

std::string host_key_problem(const GitUrl& url, const GitAuth& auth, const std::string& key) {
  std::string type = key_blob_type(key);
  std::string name = known_hosts_name(url.host, ssh_port(url));
  std::string files = join(auth.known_hosts_files, ", ");
  std::string presented = type + " key " + key_fingerprint(key);
  auto check = check_host_key(auth.known_hosts, url.host, ssh_port(url), type, key);
  std::string prefix = "host key verification failed: ";
  switch (check.verdict) {
    case HostKeyVerdict::trusted:
      return {};
    case HostKeyVerdict::revoked:
      return prefix + name + " presented " + presented + ", which is @revoked in " + files;
    case HostKeyVerdict::mismatch:
      return prefix + name + " presented " + presented + ", which does not match its " + type + " key in " +
             files + " (the host key changed, or someone is intercepting the connection)";
    case HostKeyVerdict::other_type:
      return prefix + name + " presented " + presented + " but " + files + " lists only " +
             join(check.listed_types, ", ") + " keys for it";
    case HostKeyVerdict::unknown:
      break;
  }
  std::string port = ssh_port(url) == 22 ? "" : "-p " + std::to_string(ssh_port(url)) + " ";
  return prefix + name + " is not in " + files + " (it presented " + presented +
         "); add it with \"ssh-keyscan " + port + url.host + " >> " + auth.known_hosts_files.front() +
         "\" or pass --git-insecure-ignore-host-key";
}

git_remote_callbacks auth_callbacks(AuthSession& session) {
  git_remote_callbacks callbacks = GIT_REMOTE_CALLBACKS_INIT;
  callbacks.credentials = credentials_callback;
  callbacks.certificate_check = certificate_check_callback;
  callbacks.payload = &session;
  return callbacks;
}

}  // namespace opctl::source
