// robfig/cron v3, the parser kube-apiserver validates CronJob schedules with
// and the CronJob controller computes their times with, as a reference for
// opctl's own parser (tests/cron_parity). Reads lines
// "expression<TAB>zone<TAB>unix seconds" on stdin and prints, per line,
// "error", "never" or the next time in unix seconds, as the controller gets
// it: cron.ParseStandard, then Next() of the time in the zone.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	zones := map[string]*time.Location{}
	for in.Scan() {
		parts := strings.Split(in.Text(), "\t")
		if len(parts) != 3 {
			fmt.Fprintln(os.Stderr, "want expression<TAB>zone<TAB>seconds, got", in.Text())
			os.Exit(2)
		}
		zone, ok := zones[parts[1]]
		if !ok {
			loaded, err := time.LoadLocation(parts[1])
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			zones[parts[1]], zone = loaded, loaded
		}
		after, err := strconv.ParseInt(parts[2], 10, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		schedule, err := cron.ParseStandard(parts[0])
		if err != nil {
			fmt.Fprintln(out, "error")
			continue
		}
		next := schedule.Next(time.Unix(after, 0).In(zone))
		if next.IsZero() {
			fmt.Fprintln(out, "never")
		} else {
			fmt.Fprintln(out, next.Unix())
		}
	}
}
