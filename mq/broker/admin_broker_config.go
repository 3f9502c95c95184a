package broker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/annotated-rocketmq/rocketmq-go/mq/clock"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/conf"
	"github.com/annotated-rocketmq/rocketmq-go/mq/internal/configfile"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting"
	"github.com/annotated-rocketmq/rocketmq-go/mq/remoting/protocol"
)

// BrokerConfigPath is where UPDATE_BROKER_CONFIG writes the effective configuration:
// <storePathRootDir>/config/broker.properties (RocketMQ's default brokerConfigPath, under the
// store root). Start a broker with -c on it to keep the updated values.
// Java: BrokerPathConfigHelper#getBrokerConfigPath.
func BrokerConfigPath(rootDir string) string {
	return filepath.Join(rootDir, "config", "broker.properties")
}

// brokerConfiguration is the broker's config table as the admin requests see it: the values
// UPDATE_BROKER_CONFIG set over the ones the broker started with, and their DataVersion.
// mu guards both. Java: org.apache.rocketmq.common.Configuration.
//
// Deviation: Java sets the new values on the live config objects by reflection. Go's config
// structs are read without a lock by every goroutine of the broker, so an update here is
// recorded (GET_BROKER_CONFIG answers it), validated as a start would validate it, and written
// to BrokerConfigPath; the running broker keeps its values until it is restarted on that file.
type brokerConfiguration struct {
	mu      sync.Mutex
	updated map[string]string
	version protocol.DataVersion
}

// getBrokerConfig answers GET_BROKER_CONFIG (26): the body is the effective configuration in
// properties syntax (broker and store keys, durations in ms), the header's version its
// DataVersion as JSON. Java: AdminBrokerProcessor#getBrokerConfig.
func (p *AdminBrokerProcessor) getBrokerConfig() *remoting.RemotingCommand {
	p.conf.mu.Lock()
	defer p.conf.mu.Unlock()
	bc, sc := p.b.cfg, p.b.storeCfg
	if _, err := conf.Apply(p.conf.updated, &bc, &sc); err != nil {
		return remoting.NewResponse(protocol.SystemError, err.Error())
	}
	resp := remoting.NewResponse(protocol.Success, "")
	resp.Body = []byte(conf.Format(&bc, &sc))
	h := protocol.GetBrokerConfigResponseHeader{Version: string(p.conf.version.Encode())}
	resp.ExtFields = protocol.EncodeHeader(&h)
	return resp
}

// updateBrokerConfig answers UPDATE_BROKER_CONFIG (25), whose body is properties text
// (key=value lines): an unknown key, a value that does not parse or a combination a start
// would refuse is SYSTEM_ERROR naming it, and nothing changes; otherwise the effective
// configuration is written to BrokerConfigPath (a failed write is SYSTEM_ERROR and nothing
// changes), the values are recorded, the DataVersion moves on, and the answer's remark says
// where the file is and that the values apply on a restart with -c on it (see
// brokerConfiguration's Deviation). Java: AdminBrokerProcessor#updateBrokerConfig.
func (p *AdminBrokerProcessor) updateBrokerConfig(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	props, err := conf.ParseProperties(bytes.NewReader(req.Body))
	if err != nil || len(props) == 0 {
		return remoting.NewResponse(protocol.SystemError, fmt.Sprintf("string2Properties error: %v", err))
	}
	p.conf.mu.Lock()
	defer p.conf.mu.Unlock()
	bc, sc := p.b.cfg, p.b.storeCfg
	if _, err := conf.Apply(p.conf.updated, &bc, &sc); err != nil {
		return remoting.NewResponse(protocol.SystemError, err.Error())
	}
	unknown, err := conf.Apply(props, &bc, &sc)
	if err == nil && len(unknown) > 0 {
		err = fmt.Errorf("unknown config key(s): %s", strings.Join(unknown, ", "))
	}
	if err == nil {
		err = validateConfigs(&bc, &sc)
	}
	if err != nil {
		return remoting.NewResponse(protocol.SystemError, "update broker config failed: "+err.Error())
	}
	path := BrokerConfigPath(p.b.storeCfg.StorePathRootDir)
	if err := configfile.Store(path, []byte(conf.Format(&bc, &sc))); err != nil {
		p.b.log.Error("persist broker config", "err", err)
		return remoting.NewResponse(protocol.SystemError, "update broker config failed: "+err.Error())
	}
	if p.conf.updated == nil {
		p.conf.updated = map[string]string{}
	}
	for k, v := range props {
		p.conf.updated[k] = v
	}
	p.conf.version.NextVersion(clock.Millis(p.b.clock))
	p.b.log.Info("updateBrokerConfig called", "props", props, "writtenTo", path)
	return remoting.NewResponse(protocol.Success, updateBrokerConfigNote(path))
}

// updateBrokerConfigNote is the remark of a successful UPDATE_BROKER_CONFIG: where the values
// went and that the running broker does not use them yet (brokerConfiguration's Deviation).
// Java's broker answers SUCCESS with no remark; Java's mqadmin prints none.
func updateBrokerConfigNote(path string) string {
	return "written to " + path + "; the running broker keeps its current values until it is restarted with -c " + path
}

// updateAndCreateSubscriptionGroup answers UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200), whose body
// is a SubscriptionGroupConfig as JSON (fields it lacks take Java's defaults); a body that does
// not decode or names no group is SYSTEM_ERROR. Java: AdminBrokerProcessor#updateAndCreateSubscriptionGroup.
func (p *AdminBrokerProcessor) updateAndCreateSubscriptionGroup(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var probe struct {
		GroupName string `json:"groupName"`
	}
	if err := json.Unmarshal(req.Body, &probe); err != nil || probe.GroupName == "" {
		return remoting.NewResponse(protocol.SystemError, fmt.Sprintf("bad subscription group config body: %v", err))
	}
	c := NewSubscriptionGroupConfig(probe.GroupName)
	if err := json.Unmarshal(req.Body, &c); err != nil {
		return remoting.NewResponse(protocol.SystemError, fmt.Sprintf("bad subscription group config body: %v", err))
	}
	p.b.log.Info("updateAndCreateSubscriptionGroup called", "group", c.GroupName)
	p.b.subscriptionGroupManager.UpdateSubscriptionGroupConfig(c)
	return remoting.NewResponse(protocol.Success, "")
}

// deleteSubscriptionGroup answers DELETE_SUBSCRIPTIONGROUP (207): the group's config goes (and,
// with removeOffset, its consumer offsets). Java: AdminBrokerProcessor#deleteSubscriptionGroup.
func (p *AdminBrokerProcessor) deleteSubscriptionGroup(req *remoting.RemotingCommand) *remoting.RemotingCommand {
	var h protocol.DeleteSubscriptionGroupRequestHeader
	if err := protocol.DecodeHeader(req.ExtFields, &h); err != nil {
		return badHeader("delete subscription group", err)
	}
	p.b.log.Info("deleteSubscriptionGroup called", "group", h.GroupName, "removeOffset", h.RemoveOffset)
	p.b.subscriptionGroupManager.DeleteSubscriptionGroupConfig(h.GroupName)
	if h.RemoveOffset {
		p.b.consumerOffsetManager.RemoveOffset(h.GroupName)
	}
	return remoting.NewResponse(protocol.Success, "")
}
