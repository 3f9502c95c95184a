package namesrv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/metrics"
)

// NamesrvConfig mirrors org.apache.rocketmq.common.namesrv.NamesrvConfig, plus the two timings
// RocketMQ hard-codes in NamesrvController and RouteInfoManager (made configurable so tests and
// chapters can shorten them).
type NamesrvConfig struct {
	// RocketmqHome is ROCKETMQ_HOME (unused by the core; kept for config compatibility).
	RocketmqHome string `prop:"rocketmqHome"`
	// KvConfigPath is the KV config file (default ~/namesrv/kvConfig.json).
	KvConfigPath string `prop:"kvConfigPath"`
	// ClusterTest is RocketMQ's test-cluster switch (unused).
	ClusterTest bool `prop:"clusterTest"`
	// OrderMessageEnable puts a topic's ORDER_TOPIC_CONFIG KV item ("brokerName:queueNums;...")
	// into its route as orderTopicConf (default false).
	OrderMessageEnable bool `prop:"orderMessageEnable"`
	// ScanNotActiveBrokerInterval is the period of scanNotActiveBroker (Java: 10 s).
	ScanNotActiveBrokerInterval time.Duration `prop:"scanNotActiveBrokerInterval"`
	// BrokerChannelExpiredTime is how long a broker may go without registering before it is
	// removed (Java: BROKER_CHANNEL_EXPIRED_TIME = 120 s).
	BrokerChannelExpiredTime time.Duration `prop:"brokerChannelExpiredTime"`
	// LogLevel is the level of the operating log on stderr: DEBUG, INFO, WARN or ERROR.
	// Deviation: not a RocketMQ key (RocketMQ configures logback); the broker has the same key.
	LogLevel string `prop:"logLevel"`
	// ExporterConfig: metricsExporterType (DISABLE, PROM), metricsPromExporterHost,
	// metricsPromExporterPort (5557): the /metrics endpoint mqnamesrv serves.
	metrics.ExporterConfig
}

// DefaultNamesrvConfig returns RocketMQ 4.9's defaults.
func DefaultNamesrvConfig() NamesrvConfig {
	home, _ := os.UserHomeDir()
	return NamesrvConfig{
		RocketmqHome:                os.Getenv("ROCKETMQ_HOME"),
		KvConfigPath:                filepath.Join(home, "namesrv", "kvConfig.json"),
		ScanNotActiveBrokerInterval: 10 * time.Second,
		BrokerChannelExpiredTime:    120 * time.Second,
		LogLevel:                    "INFO",
		ExporterConfig:              metrics.DefaultExporterConfig(),
	}
}

// Validate rejects impossible settings.
func (c *NamesrvConfig) Validate() error {
	if _, err := conf.ParseLogLevel(c.LogLevel); err != nil {
		return fmt.Errorf("namesrv config: %w", err)
	}
	if c.ScanNotActiveBrokerInterval <= 0 {
		return errors.New("namesrv config: scanNotActiveBrokerInterval must be > 0")
	}
	if c.BrokerChannelExpiredTime <= 0 {
		return errors.New("namesrv config: brokerChannelExpiredTime must be > 0")
	}
	return c.ExporterConfig.Validate("namesrv")
}
