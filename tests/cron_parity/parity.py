#!/usr/bin/env python3
"""Differential test: opctl's cron parser against robfig/cron v3, the library kube-apiserver validates CronJob
schedules with and the CronJob controller computes their times with.

A seeded corpus of schedules (valid and malformed, five fields and descriptors), time zones and start times (a third of
them within hours of a daylight-saving shift) goes through both: robfig/main.go, built from the Go module proxy, and
opctl's cron_probe. Required: both accept or both refuse every schedule, and both give the same next time for every
accepted one, except in zones whose clock shifts by other than a whole hour, off the hour or at local midnight
(Australia/Lord_Howe, Pacific/Chatham, America/Santiago), where robfig/cron misfires around a shift and opctl keeps
the correct wall-clock time: there the agreement is only reported. Exit 1 on any required difference, with the first ones printed.
"""
import argparse
import datetime
import os
import random
import subprocess
import sys
import zoneinfo

CASES = 24000
SEED = 20261201
ZONES = ["UTC", "Europe/Berlin", "Europe/London", "America/New_York", "America/Sao_Paulo", "America/Santiago",
         "America/St_Johns", "Asia/Kolkata", "Asia/Tehran", "Australia/Sydney", "Australia/Adelaide",
         "Australia/Lord_Howe", "Pacific/Chatham"]
DESCRIPTORS = ["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly",
               "@every 90m", "@every 1h30m", "@every 1.5h", "@every 45s", "@every 300ms", "@every 0", "@every 2h45m10s",
               "@every 5d", "@every 90", "@every 1h 30m", "@every  90m", "@every -5m", "@every", "@DAILY", "@Daily",
               " @daily", "@daily ", "@hourly 5", "@fortnightly", "@EVERY 5m"]
MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
FIELDS = [(0, 59, None), (0, 23, None), (1, 31, None), (1, 12, MONTHS), (0, 6, DAYS)]


def value(rng, low, high, names):
    roll = rng.random()
    if roll < 0.03:
        return str(rng.choice([low - 1, high + 1, high + 7]))  # out of range (7 for Sunday, 0 for a day)
    number = rng.randint(low, high)
    if names and roll < 0.3:
        name = names[number - low]
        return rng.choice([name, name.upper(), name.capitalize()])
    return str(number)


def atom(rng, low, high, names):
    roll = rng.random()
    if roll < 0.25:
        base = rng.choice(["*", "?"]) if rng.random() < 0.2 else "*"
    elif roll < 0.6:
        base = value(rng, low, high, names)
    else:
        a, b = sorted([rng.randint(low, high), rng.randint(low, high)])
        if rng.random() < 0.05:
            a, b = b, a  # a range that ends before it starts (refused when a > b)
        base = f"{value(rng, a, a, names) if names else a}-{b}"
    if rng.random() < 0.3:
        base += f"/{rng.choice([0, 1, 2, 3, 5, 7, 10, 15, 30, 45, 90]) if rng.random() < 0.1 else rng.randint(1, 12)}"
    return base


def field(rng, low, high, names):
    count = 1 if rng.random() < 0.8 else rng.randint(2, 3)
    return ",".join(atom(rng, low, high, names) for _ in range(count))


def schedule(rng):
    roll = rng.random()
    if roll < 0.08:
        return rng.choice(DESCRIPTORS)
    fields = [field(rng, *spec) for spec in FIELDS]
    if roll < 0.11:
        fields = fields[:rng.randint(1, 4)] if rng.random() < 0.5 else ["0"] + fields  # 1-4 or 6 fields
    text = " ".join(fields)
    if rng.random() < 0.02:
        text = f"  {text} "
    return text


def shifts(zone_name):
    """Where the zone's offset changes, 2024-2029: [(unix seconds, offset before, offset after)], to the second."""
    zone = zoneinfo.ZoneInfo(zone_name)

    def offset(seconds):
        return datetime.datetime.fromtimestamp(seconds, zone).utcoffset().total_seconds()

    start = int(datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc).timestamp())
    found, step = [], 900
    before = offset(start)
    for sample in range(start + step, start + 6 * 366 * 86400, step):
        after = offset(sample)
        if after == before:
            continue
        unchanged, changed = sample - step, sample
        while changed - unchanged > 1:
            middle = (unchanged + changed) // 2
            unchanged, changed = (middle, changed) if offset(middle) == before else (unchanged, middle)
        found.append((changed, before, after))
        before = after
    return found


def irregular(zone_shifts):
    """A shift robfig/cron misfires around: not a whole hour, off the hour, or at local midnight (the same rule as
    TimeZone::irregular_shift)."""
    for instant, before, after in zone_shifts:
        local = (instant + before) % 86400
        if (after - before) % 3600 or local % 3600 or local == 0:
            return True
    return False


def corpus(rng, near):
    low = int(datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc).timestamp())
    high = int(datetime.datetime(2029, 1, 1, tzinfo=datetime.timezone.utc).timestamp())
    for _ in range(CASES):
        zone = rng.choice(ZONES)
        if near[zone] and rng.random() < 0.35:
            after = rng.choice(near[zone])[0] + rng.randint(-4 * 3600, 4 * 3600)
        else:
            after = rng.randint(low, high)
        if rng.random() < 0.5:
            after -= after % 60  # on a whole minute, as the controller's times often are
        yield schedule(rng), zone, after


def run(command, text, cwd=None, env=None):
    result = subprocess.run(command, input=text, capture_output=True, text=True, cwd=cwd, env=env, timeout=300)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({result.returncode}): {result.stderr}")
    return result.stdout.splitlines()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--probe", required=True, help="opctl_cron_probe")
    parser.add_argument("--go", default="go")
    parser.add_argument("--work", required=True, help="where the robfig/cron probe is built")
    args = parser.parse_args()

    robfig = os.path.join(args.work, "robfig-cron-probe")
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "robfig")
    env = dict(os.environ, GOFLAGS="-mod=readonly", CGO_ENABLED="0")
    run([args.go, "build", "-o", robfig, "."], "", cwd=source, env=env)

    near = {zone: shifts(zone) for zone in ZONES}
    irregular_zones = {zone for zone in ZONES if irregular(near[zone])}
    cases = list(corpus(random.Random(SEED), near))
    text = "".join(f"{expression}\t{zone}\t{after}\n" for expression, zone, after in cases)
    theirs = run([robfig], text)
    ours = run([args.probe], text)
    assert len(theirs) == len(ours) == len(cases), (len(theirs), len(ours), len(cases))

    required, reported = [], []
    accepted = same_time = 0
    for case, their, our in zip(cases, theirs, ours):
        if (their == "error") != (our == "error"):
            required.append((case, their, our))
            continue
        if their == "error":
            continue
        accepted += 1
        if their == our:
            same_time += 1
        elif case[1] in irregular_zones:
            reported.append((case, their, our))
        else:
            required.append((case, their, our))

    def show(rows):
        for (expression, zone, after), their, our in rows[:25]:
            stamp = datetime.datetime.fromtimestamp(after, datetime.timezone.utc).isoformat()
            print(f"  {expression!r} in {zone} after {stamp}: robfig/cron {their}, opctl {our}")

    print(f"{len(cases)} schedules, {accepted} accepted by both; next times agree on {same_time} "
          f"({100.0 * same_time / max(accepted, 1):.2f} %)")
    print(f"zones with shifts robfig/cron misfires around: {', '.join(sorted(irregular_zones))}")
    if reported:
        print(f"{len(reported)} differ in those zones (reported only):")
        show(reported)
    if required:
        print(f"{len(required)} required differences:")
        show(required)
        sys.exit(1)


if __name__ == "__main__":
    main()
