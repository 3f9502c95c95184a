package broker

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/metrics"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// BrokerConfig mirrors org.apache.rocketmq.common.BrokerConfig (the part this broker uses), plus
// ListenPort, which Java keeps in NettyServerConfig and BrokerStartup sets to 10911, and the two
// client-channel timings RocketMQ hard-codes (made configurable so tests can shorten them).
//
// The `prop` tag is the RocketMQ properties key (broker.conf). Durations are written in a
// properties file as integer milliseconds, as RocketMQ's *Mills / *Period keys are.
type BrokerConfig struct {
	// RocketmqHome is ROCKETMQ_HOME (unused by the core; kept for config compatibility).
	RocketmqHome string `prop:"rocketmqHome"`
	// NamesrvAddr lists the name servers, "ip:port" separated by ';' ("" = register nowhere).
	NamesrvAddr string `prop:"namesrvAddr"`
	// BrokerIP1 is the IP published to name servers and written as store host into every
	// message (offsetMsgId).
	//
	// Deviation: RocketMQ defaults to the first non-loopback address of the host; we default to
	// 127.0.0.1, so the official client on the same machine works out of the box (and tests and
	// chapters stay off the network). Set brokerIP1 to publish another address.
	BrokerIP1 string `prop:"brokerIP1"`
	// BrokerIP2 is the IP of the HA address published to name servers; "" means the same as
	// BrokerIP1 (Java defaults both to the same host address).
	BrokerIP2 string `prop:"brokerIP2"`
	// ListenPort is the broker's remoting port (Java: NettyServerConfig.listenPort, 10911).
	// 0 binds an ephemeral port; the broker then registers the port it actually bound. The HA
	// address published to name servers uses ListenPort+1 (BrokerStartup forces haListenPort so);
	// the fast (VIP) server listens on ListenPort-2 (an ephemeral port too when ListenPort is 0).
	ListenPort int `prop:"listenPort"`
	// BrokerName names the master/slave set (default: the host name).
	BrokerName string `prop:"brokerName"`
	// BrokerClusterName is the cluster the broker registers under.
	BrokerClusterName string `prop:"brokerClusterName"`
	// BrokerID is 0 for a master, > 0 for a slave.
	BrokerID int64 `prop:"brokerId"`
	// SlaveReadEnable lets consumers read from slaves: a pull answer then suggests the
	// subscription group's whichBrokerWhenConsumeSlowly (default 1) when the data read is no
	// longer in memory, else the group's brokerId (default 0, the master). Off (false), every
	// answer suggests the master.
	SlaveReadEnable bool `prop:"slaveReadEnable"`
	// BrokerPermission gates sends (bit 2 = WRITE, value 2) and pulls (READ, value 4); 6 = RW.
	BrokerPermission int `prop:"brokerPermission"`
	// DefaultTopicQueueNums is the queue count of TBW102 (read and write), 8.
	DefaultTopicQueueNums int `prop:"defaultTopicQueueNums"`
	// AutoCreateTopicEnable creates TBW102 (perm 7) at start, so unknown topics are created on
	// their first send.
	AutoCreateTopicEnable bool `prop:"autoCreateTopicEnable"`
	// ClusterTopicEnable makes the cluster-name topic readable and writable.
	ClusterTopicEnable bool `prop:"clusterTopicEnable"`
	// BrokerTopicEnable makes the broker-name topic readable and writable.
	BrokerTopicEnable bool `prop:"brokerTopicEnable"`
	// AutoCreateSubscriptionGroup creates a group's config on its first heartbeat or pull.
	AutoCreateSubscriptionGroup bool `prop:"autoCreateSubscriptionGroup"`
	// TraceTopicEnable creates MsgTraceTopicName (1 queue) at start.
	TraceTopicEnable bool `prop:"traceTopicEnable"`
	// MsgTraceTopicName is the message-trace topic.
	MsgTraceTopicName string `prop:"msgTraceTopicName"`
	// RegionID is returned in every send response (extField MSG_REGION).
	RegionID string `prop:"regionId"`
	// TraceOn is returned in every send response (extField TRACE_ON).
	TraceOn bool `prop:"traceOn"`
	// NotifyConsumerIdsChangedEnable sends NOTIFY_CONSUMER_IDS_CHANGED when a group's
	// channels or subscriptions change.
	NotifyConsumerIdsChangedEnable bool `prop:"notifyConsumerIdsChangedEnable"`
	// LongPollingEnable holds a pull that found nothing for the client's suspendTimeoutMillis;
	// off, it is held ShortPollingTimeMills.
	LongPollingEnable bool `prop:"longPollingEnable"`
	// ShortPollingTimeMills is the hold time of a pull with long polling off (1 s).
	ShortPollingTime time.Duration `prop:"shortPollingTimeMills"`
	// MaxHeldPullRequests is how many pulls the broker holds at most (all queues, all
	// connections; default 100000). A pull that would be held beyond it is answered at once
	// with PULL_NOT_FOUND, as a pull that found nothing new is, so the client pulls again.
	// Deviation: RocketMQ's PullRequestHoldService has no bound (a client can park unlimited
	// pulls, each holding its request in memory); the key is this project's.
	MaxHeldPullRequests int `prop:"maxHeldPullRequests"`
	// RegisterNameServerPeriod is the period of registerBrokerAll (30 s; Java clamps it to
	// [10 s, 60 s]).
	//
	// Deviation: only the upper bound (60 s) is applied, so tests and chapters may register
	// more often.
	RegisterNameServerPeriod time.Duration `prop:"registerNameServerPeriod"`
	// RegisterBrokerTimeoutMills is the timeout of one REGISTER_BROKER call (6 s).
	RegisterBrokerTimeout time.Duration `prop:"registerBrokerTimeoutMills"`
	// ForceRegister makes every periodic registration send the whole topic table (true). With
	// false, the broker first asks each name server QUERY_DATA_VERSION and registers only when
	// one reports a changed DataVersion; an unchanged answer refreshes its liveness there.
	ForceRegister bool `prop:"forceRegister"`
	// FastFailureConfig: brokerFastFailureEnable, waitTimeMillsIn*Queue (broker_fast_failure.go).
	FastFailureConfig
	// ExporterConfig: metricsExporterType (DISABLE, PROM), metricsPromExporterHost,
	// metricsPromExporterPort (5557): the /metrics endpoint mqbroker serves (broker_metrics.go).
	metrics.ExporterConfig
	// SendMessageThreadPoolNums is the worker count of SEND_MESSAGE* (Java: 1 in 4.9).
	SendMessageThreadPoolNums int `prop:"sendMessageThreadPoolNums"`
	// PullMessageThreadPoolNums is the worker count of PULL_MESSAGE (Java: 16 + 2 × cores).
	PullMessageThreadPoolNums int `prop:"pullMessageThreadPoolNums"`
	// AdminBrokerThreadPoolNums is the worker count of the admin processor (16).
	AdminBrokerThreadPoolNums int `prop:"adminBrokerThreadPoolNums"`
	// ClientManageThreadPoolNums is the worker count of UNREGISTER_CLIENT (32).
	ClientManageThreadPoolNums int `prop:"clientManageThreadPoolNums"`
	// ConsumerManageThreadPoolNums is the worker count of the consumer-manage codes (32).
	ConsumerManageThreadPoolNums int `prop:"consumerManageThreadPoolNums"`
	// HeartbeatThreadPoolNums is the worker count of HEART_BEAT (min(32, cores)).
	HeartbeatThreadPoolNums int `prop:"heartbeatThreadPoolNums"`
	// ProcessReplyMessageThreadPoolNums is the worker count of SEND_REPLY_MESSAGE(_V2)
	// (Java: 16 + 2 × cores).
	ProcessReplyMessageThreadPoolNums int `prop:"processReplyMessageThreadPoolNums"`
	// StoreReplyMessageEnable stores each reply in <cluster>_REPLY_TOPIC as well as pushing it to
	// the requester (true).
	StoreReplyMessageEnable bool `prop:"storeReplyMessageEnable"`
	// ChannelExpiredTimeout drops a client channel not refreshed by a heartbeat for this long
	// (Java: ConsumerManager/ProducerManager CHANNEL_EXPIRED_TIMEOUT, 120 s; not a Java key).
	ChannelExpiredTimeout time.Duration `prop:"channelExpiredTimeout"`
	// ClientHousekeepingInterval is the period of the client channel scan (Java:
	// ClientHousekeepingService, 10 s, first after 10 s; not a Java key).
	ClientHousekeepingInterval time.Duration `prop:"clientHousekeepingInterval"`
	// FlushConsumerOffsetInterval is the period of writing config/consumerOffset.json (5 s).
	FlushConsumerOffsetInterval time.Duration `prop:"flushConsumerOffsetInterval"`
	// RejectTransactionMessage refuses every send with TRAN_MSG=true (NO_PERMISSION); off, a
	// transaction's message is stored as a half message (false).
	RejectTransactionMessage bool `prop:"rejectTransactionMessage"`
	// TransactionTimeOut: a half message younger than this (ms, 6000) is not checked back yet.
	TransactionTimeOut time.Duration `prop:"transactionTimeOut"`
	// TransactionCheckMax is how many times a half message is checked back before it is
	// discarded to TRANS_CHECK_MAX_TIME_TOPIC (15).
	TransactionCheckMax int `prop:"transactionCheckMax"`
	// TransactionCheckInterval is the period of the transaction check service (ms, 60000).
	TransactionCheckInterval time.Duration `prop:"transactionCheckInterval"`
	// EndTransactionThreadPoolNums is the worker count of END_TRANSACTION (8 + 2 × cores).
	EndTransactionThreadPoolNums int `prop:"endTransactionThreadPoolNums"`
	// LogLevel is the level of the operating log mqbroker writes to stderr: DEBUG, INFO (the
	// default), WARN or ERROR (case-insensitive).
	//
	// Deviation: not a RocketMQ key — RocketMQ sets log levels in logback_broker.xml, which has
	// no counterpart here.
	LogLevel string `prop:"logLevel"`
	// AclEnable checks every request's signature and permissions against the ACL file before
	// its processor runs (plain_access_validator.go; false).
	AclEnable bool `prop:"aclEnable"`
	// PlainAclFile is the ACL file, reloaded when it changes; "" is conf/plain_acl.yml under
	// RocketmqHome (under the working directory when RocketmqHome is ""). Java: the system
	// property rocketmq.acl.plain.file, default ${rocketmq.home}/conf/plain_acl.yml.
	PlainAclFile string `prop:"rocketmq.acl.plain.file"`
}

// DefaultBrokerConfig returns RocketMQ 4.9's defaults (with BrokerIP1 = 127.0.0.1, see there).
func DefaultBrokerConfig() BrokerConfig {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "DEFAULT_BROKER"
	}
	cores := runtime.NumCPU()
	return BrokerConfig{
		RocketmqHome:                   os.Getenv("ROCKETMQ_HOME"),
		NamesrvAddr:                    os.Getenv("NAMESRV_ADDR"),
		BrokerIP1:                      "127.0.0.1",
		BrokerIP2:                      "",
		ListenPort:                     10911,
		BrokerName:                     host,
		BrokerClusterName:              "DefaultCluster",
		BrokerID:                       0,
		BrokerPermission:               6,
		DefaultTopicQueueNums:          8,
		AutoCreateTopicEnable:          true,
		ClusterTopicEnable:             true,
		BrokerTopicEnable:              true,
		AutoCreateSubscriptionGroup:    true,
		TraceTopicEnable:               false,
		MsgTraceTopicName:              "RMQ_SYS_TRACE_TOPIC",
		RegionID:                       "DefaultRegion",
		TraceOn:                        true,
		NotifyConsumerIdsChangedEnable: true,
		LongPollingEnable:              true,
		ShortPollingTime:               1000 * time.Millisecond,
		MaxHeldPullRequests:            DefaultMaxHeldPullRequests,
		RegisterNameServerPeriod:       30 * time.Second,
		RegisterBrokerTimeout:          6 * time.Second,
		ForceRegister:                  true,
		FastFailureConfig:              DefaultFastFailureConfig(),
		ExporterConfig:                 metrics.DefaultExporterConfig(),
		SendMessageThreadPoolNums:      1,
		PullMessageThreadPoolNums:      16 + 2*cores,
		AdminBrokerThreadPoolNums:      16,
		ClientManageThreadPoolNums:     32,
		ConsumerManageThreadPoolNums:   32,
		HeartbeatThreadPoolNums:        min(32, cores),
		ChannelExpiredTimeout:          120 * time.Second,
		ClientHousekeepingInterval:     10 * time.Second,
		FlushConsumerOffsetInterval:    5 * time.Second,
		RejectTransactionMessage:       false,
		TransactionTimeOut:             6 * time.Second,
		TransactionCheckMax:            15,
		TransactionCheckInterval:       60 * time.Second,
		EndTransactionThreadPoolNums:   8 + 2*cores,
		LogLevel:                       "INFO",

		ProcessReplyMessageThreadPoolNums: 16 + 2*cores,
		StoreReplyMessageEnable:           true,
	}
}

// Validate rejects impossible settings.
func (c *BrokerConfig) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("broker config: "+format, a...)) }
	if c.BrokerName == "" {
		bad("brokerName must not be empty")
	}
	if c.BrokerClusterName == "" {
		bad("brokerClusterName must not be empty")
	}
	if net.ParseIP(c.BrokerIP1) == nil {
		bad("brokerIP1 %q is not an IP address", c.BrokerIP1)
	}
	if c.BrokerIP2 != "" && net.ParseIP(c.BrokerIP2) == nil {
		bad("brokerIP2 %q is not an IP address", c.BrokerIP2)
	}
	if c.BrokerID < 0 {
		bad("brokerId must be >= 0, got %d", c.BrokerID)
	}
	if c.ListenPort != 0 && (c.ListenPort < 3 || c.ListenPort > 65534) {
		bad("listenPort must be 0 (ephemeral) or in [3, 65534] (listenPort-2 is the fast port, "+
			"listenPort+1 the HA port), got %d", c.ListenPort)
	}
	if c.BrokerPermission < 0 || c.BrokerPermission > 15 {
		bad("brokerPermission must be in [0, 15], got %d", c.BrokerPermission)
	}
	if c.DefaultTopicQueueNums <= 0 {
		bad("defaultTopicQueueNums must be > 0, got %d", c.DefaultTopicQueueNums)
	}
	if c.ShortPollingTime <= 0 {
		bad("shortPollingTimeMills must be > 0")
	}
	if c.MaxHeldPullRequests <= 0 {
		bad("maxHeldPullRequests must be > 0, got %d", c.MaxHeldPullRequests)
	}
	if c.RegisterNameServerPeriod <= 0 {
		bad("registerNameServerPeriod must be > 0")
	}
	if c.RegisterBrokerTimeout <= 0 {
		bad("registerBrokerTimeoutMills must be > 0")
	}
	if c.ChannelExpiredTimeout <= 0 {
		bad("channelExpiredTimeout must be > 0")
	}
	if c.ClientHousekeepingInterval <= 0 {
		bad("clientHousekeepingInterval must be > 0")
	}
	if c.FlushConsumerOffsetInterval <= 0 {
		bad("flushConsumerOffsetInterval must be > 0")
	}
	if c.TransactionTimeOut < 0 {
		bad("transactionTimeOut must be >= 0")
	}
	if c.TransactionCheckMax <= 0 {
		bad("transactionCheckMax must be > 0, got %d", c.TransactionCheckMax)
	}
	if c.TransactionCheckInterval <= 0 {
		bad("transactionCheckInterval must be > 0")
	}
	if _, err := conf.ParseLogLevel(c.LogLevel); err != nil {
		bad("%v", err)
	}
	for _, p := range []struct {
		name string
		v    int
	}{
		{"sendMessageThreadPoolNums", c.SendMessageThreadPoolNums},
		{"pullMessageThreadPoolNums", c.PullMessageThreadPoolNums},
		{"adminBrokerThreadPoolNums", c.AdminBrokerThreadPoolNums},
		{"clientManageThreadPoolNums", c.ClientManageThreadPoolNums},
		{"consumerManageThreadPoolNums", c.ConsumerManageThreadPoolNums},
		{"heartbeatThreadPoolNums", c.HeartbeatThreadPoolNums},
		{"processReplyMessageThreadPoolNums", c.ProcessReplyMessageThreadPoolNums},
		{"endTransactionThreadPoolNums", c.EndTransactionThreadPoolNums},
	} {
		if p.v <= 0 {
			bad("%s must be > 0, got %d", p.name, p.v)
		}
	}
	if err := c.ExporterConfig.Validate("broker"); err != nil {
		errs = append(errs, err)
	}
	for _, a := range c.NamesrvAddrList() {
		host, port, err := net.SplitHostPort(a)
		if n, perr := strconv.Atoi(port); err != nil || host == "" || perr != nil || n <= 0 || n > 65535 {
			bad("namesrvAddr entry %q is not ip:port", a)
		}
	}
	return errors.Join(errs...)
}

// NamesrvAddrList is NamesrvAddr's list (protocol.SplitNamesrvAddr).
func (c *BrokerConfig) NamesrvAddrList() []string { return protocol.SplitNamesrvAddr(c.NamesrvAddr) }

// String prints the config in properties syntax (key=value per line, in field order), durations
// in milliseconds.
func (c BrokerConfig) String() string {
	return conf.Format(&c)
}
