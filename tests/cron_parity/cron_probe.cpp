// opctl's cron parser (kinds/cron) on the same input as robfig/main.go:
// lines "expression<TAB>zone<TAB>unix seconds" on stdin; per line "error",
// "never" or the next time in unix seconds.
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "kinds/cron/cron_schedule.hpp"
#include "model/error.hpp"

int main() {
  using opctl::kinds::cron::CronSchedule;
  using opctl::kinds::cron::Seconds;
  using opctl::kinds::cron::TimeZone;
  std::map<std::string, TimeZone> zones;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream fields(line);
    std::string expression, zone_name, after;
    if (!std::getline(fields, expression, '\t') || !std::getline(fields, zone_name, '\t') ||
        !std::getline(fields, after)) {
      std::cerr << "want expression<TAB>zone<TAB>seconds, got " << line << "\n";
      return 2;
    }
    auto zone = zones.find(zone_name);
    if (zone == zones.end()) zone = zones.emplace(zone_name, TimeZone::load(zone_name)).first;
    try {
      auto schedule = CronSchedule::parse(expression);
      auto next = schedule.next_after(Seconds(std::chrono::seconds(std::stoll(after))), zone->second);
      if (next)
        std::cout << next->time_since_epoch().count() << "\n";
      else
        std::cout << "never\n";
    } catch (const opctl::Error& refused) {
      std::cout << "error\n";
    }
  }
  return 0;
}
