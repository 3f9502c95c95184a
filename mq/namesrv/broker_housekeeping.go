package namesrv

import "github.com/annotated-rocketmq/rocketmq-go/mq/remoting"

// BrokerHousekeepingService turns channel events into route cleanup: a broker whose connection
// closes, idles out or fails is forgotten at once rather than after the 120 s expiry.
// Mirrors org.apache.rocketmq.namesrv.routeinfo.BrokerHousekeepingService.
type BrokerHousekeepingService struct {
	c *NamesrvController
}

// OnChannelConnect implements remoting.ChannelEventListener (nothing to do).
func (s *BrokerHousekeepingService) OnChannelConnect(string, *remoting.Channel) {}

// OnChannelClose implements remoting.ChannelEventListener.
func (s *BrokerHousekeepingService) OnChannelClose(remoteAddr string, ch *remoting.Channel) {
	s.c.RouteInfoManager.OnChannelDestroy(remoteAddr, ch)
}

// OnChannelIdle implements remoting.ChannelEventListener.
func (s *BrokerHousekeepingService) OnChannelIdle(remoteAddr string, ch *remoting.Channel) {
	s.c.RouteInfoManager.OnChannelDestroy(remoteAddr, ch)
}

// OnChannelException implements remoting.ChannelEventListener.
func (s *BrokerHousekeepingService) OnChannelException(remoteAddr string, ch *remoting.Channel) {
	s.c.RouteInfoManager.OnChannelDestroy(remoteAddr, ch)
}
