package broker

import (
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/store"
)

// masterWaitRetry is how often a slave that learns its master from the name server registers
// again while it knows no master HA address yet (a slave started before its master), instead
// of waiting for the next periodic registration (registerNameServerPeriod, 30 s). Deviation:
// Java's slave waits for that one.
const masterWaitRetry = 5 * time.Second

// followsMasterFromNamesrv: a slave without haMasterAddress, which learns its master's HA
// address from the registration answers (not with ManualServices: a chapter steps its slave).
func (b *BrokerController) followsMasterFromNamesrv() bool {
	return b.storeCfg.BrokerRole == store.Slave && b.updateMasterHAServerAddrPeriodically && b.haService != nil &&
		!b.storeOpts.ManualServices
}

// startMasterWait registers again every masterWaitRetry while the slave knows no master HA
// address; once it knows one the passes do nothing.
func (b *BrokerController) startMasterWait() {
	if !b.followsMasterFromNamesrv() {
		return
	}
	b.masterWaitService.RunEvery(masterWaitRetry, masterWaitRetry, func() {
		if b.haService.HAClient().MasterAddress() == "" {
			b.RegisterBrokerAll()
		}
	})
}

// logMasterWait logs at INFO, once per wait, that the name servers know no master of this
// slave's brokerName yet (a registration answer named no master HA address), and when the slave
// asks again; an answer naming one ends the wait.
func (b *BrokerController) logMasterWait(results []RegisterBrokerResult) {
	if !b.followsMasterFromNamesrv() || len(results) == 0 {
		return
	}
	if results[0].HaServerAddr != "" {
		b.masterWaitLogged.Store(false)
		return
	}
	if b.masterWaitLogged.CompareAndSwap(false, true) {
		b.log.Info("no master of this brokerName is registered with the name server yet; replication starts once one is",
			"brokerName", b.cfg.BrokerName, "following", b.haService.HAClient().MasterAddress(), "retryIn", masterWaitRetry)
	}
}
