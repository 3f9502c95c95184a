package command

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/annotated-rocketmq/rocketmq-go/mq/admin"
)

// sortedKeys returns m's keys, sorted.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// clusterList mirrors ClusterListSubCommand: every broker of every cluster with its version,
// TPS, page-cache wait, hours of messages held and disk use.
var clusterListCmd = &SubCommand{Name: "clusterList", Desc: "List all of clusters"}

func init() {
	var c *string
	clusterListCmd.options = func(o *Options) { c = o.Str("c", "clusterName", "which cluster", false, "") }
	clusterListCmd.run = func(r *Run) error {
		ci, err := r.Admin.ExamineBrokerClusterInfo(r.Ctx)
		if err != nil {
			return err
		}
		now := r.Clock.Now().UnixMilli()
		tbl := table(r.Out, "#Cluster Name", "#Broker Name", "#BID", "#Addr", "#Version", "#InTPS(LOAD)",
			"#OutTPS(LOAD)", "#PCWait(ms)", "#Hour", "#SPACE")
		for _, cluster := range sortedKeys(ci.ClusterAddrTable) {
			if *c != "" && cluster != strings.TrimSpace(*c) {
				continue
			}
			for _, name := range slices.Sorted(slices.Values(ci.ClusterAddrTable[cluster])) {
				bd := ci.BrokerAddrTable[name]
				if bd == nil {
					continue
				}
				for _, id := range slices.Sorted(maps.Keys(bd.BrokerAddrs)) {
					addr := bd.BrokerAddrs[id]
					kv, err := r.Admin.FetchBrokerRuntimeStats(r.Ctx, addr)
					if err != nil {
						row(tbl, cluster, name, id, addr, "", "", "", "", "", "")
						continue
					}
					hour := 0.0
					if e, _ := strconv.ParseInt(kv["earliestMessageTimeStamp"], 10, 64); e > 0 {
						hour = float64(now-e) / 3600 / 1000
					}
					space, _ := strconv.ParseFloat(kv["commitLogDiskRatio"], 64)
					row(tbl, cluster, name, id, addr, kv["brokerVersionDesc"],
						fmt.Sprintf("%.2f", admin.FirstRate(kv["putTps"])), fmt.Sprintf("%.2f", admin.FirstRate(kv["getTransferedTps"])),
						kv["pageCacheLockTimeMills"], fmt.Sprintf("%.2f", hour), fmt.Sprintf("%.4f", space))
				}
			}
		}
		return tbl.Render()
	}
}

// brokerStatus mirrors BrokerStatusSubCommand: the broker's runtime KVTable, key: value.
var brokerStatusCmd = &SubCommand{Name: "brokerStatus", Desc: "Fetch broker runtime status data"}

func init() {
	var b, c *string
	brokerStatusCmd.options = func(o *Options) {
		b = o.Str("b", "brokerAddr", "Broker address", false, "")
		c = o.Str("c", "clusterName", "which cluster", false, "")
	}
	brokerStatusCmd.run = func(r *Run) error {
		return forTargets(r, *b, *c, func(addr string) error {
			kv, err := r.Admin.FetchBrokerRuntimeStats(r.Ctx, addr)
			for _, k := range sortedKeys(kv) {
				if *b == "" { // -c: each line names its broker
					fmt.Fprintf(r.Out, "%-24s %-32s: %s\n", addr, k, kv[k])
				} else {
					fmt.Fprintf(r.Out, "%-32s: %s\n", k, kv[k])
				}
			}
			return err
		})
	}
}

// getBrokerConfig mirrors GetBrokerConfigCommand: each broker's effective config, key = value.
var getBrokerConfigCmd = &SubCommand{Name: "getBrokerConfig", Desc: "Get broker config by cluster or special broker!"}

func init() {
	var b, c *string
	getBrokerConfigCmd.options = func(o *Options) {
		b = o.Str("b", "brokerAddr", "get which broker", false, "")
		c = o.Str("c", "clusterName", "get which cluster", false, "")
	}
	getBrokerConfigCmd.run = func(r *Run) error {
		return forTargets(r, *b, *c, func(addr string) error {
			props, err := r.Admin.GetBrokerConfig(r.Ctx, addr)
			if err != nil {
				return err
			}
			fmt.Fprintf(r.Out, "============%s============\n", addr)
			for _, k := range sortedKeys(props) {
				fmt.Fprintf(r.Out, "%-50s=  %s\n", k, props[k])
			}
			return nil
		})
	}
}

// updateBrokerConfig mirrors UpdateBrokerConfigSubCommand: set one key on a broker or on every
// master of a cluster. After Java's success line it prints the broker's remark, indented: our
// broker writes the values to config/broker.properties and applies them on a restart only.
var updateBrokerConfigCmd = &SubCommand{Name: "updateBrokerConfig", Desc: "Update broker's config"}

func init() {
	var b, c, k, v *string
	updateBrokerConfigCmd.options = func(o *Options) {
		b = o.Str("b", "brokerAddr", "update which broker", false, "")
		c = o.Str("c", "clusterName", "update which cluster", false, "")
		k = o.Str("k", "key", "config key", true, "")
		v = o.Str("v", "value", "config value", true, "")
	}
	updateBrokerConfigCmd.run = func(r *Run) error {
		props := map[string]string{strings.TrimSpace(*k): strings.TrimSpace(*v)}
		return forTargets(r, *b, *c, func(addr string) error {
			note, err := r.Admin.UpdateBrokerConfig(r.Ctx, addr, props)
			if err == nil {
				fmt.Fprintf(r.Out, "update broker config success, %s\n", addr)
				if note != "" { // our broker: where the values went, and that they wait for a restart
					fmt.Fprintf(r.Out, "  %s\n", note)
				}
			}
			return err
		})
	}
}
