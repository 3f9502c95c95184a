package broker

import (
	"fmt"
	"net"
)

// DashboardKeys are the web console's keys of a broker's -c file (mq/dashboard; mqbroker serves
// it in its own process, so the live trace can stream the broker's steps).
//
// Deviation: RocketMQ has no such keys: its Dashboard (rocketmq-dashboard) is a separate
// application over the admin API. The keys are this project's.
type DashboardKeys struct {
	// DashboardAddr is where mqbroker serves the console, "host:port" (":8080"; port 0: an
	// ephemeral port); "" (the default): no console. -dashboard on the command line wins.
	DashboardAddr string `prop:"dashboardAddr"`
	// DashboardWriteEnable lets console pages change something (the send-a-test-message form);
	// off (the default), every such request is answered 403 Forbidden.
	DashboardWriteEnable bool `prop:"dashboardWriteEnable"`
}

// Validate rejects a dashboardAddr that is not "host:port".
func (k *DashboardKeys) Validate() error {
	if k.DashboardAddr == "" {
		return nil
	}
	if _, _, err := net.SplitHostPort(k.DashboardAddr); err != nil {
		return fmt.Errorf("broker config: dashboardAddr=%q is not host:port (e.g. :8080): %v", k.DashboardAddr, err)
	}
	return nil
}
