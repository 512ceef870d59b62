module opctl.dev/tests/cron_parity/robfig

go 1.21

require github.com/robfig/cron/v3 v3.0.1
