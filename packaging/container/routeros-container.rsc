# RouterOS 7 commands to run the ticketnet agent in a container (RouterOS 7.4+ with the container package
# and device-mode container enabled). Replace the enrolment code and the controller URL. On 7.20 and later
# /container/envs names its list with list= instead of name=.
/interface/veth add name=veth-ticketnet address=172.31.255.2/30 gateway=172.31.255.1
/ip/address add address=172.31.255.1/30 interface=veth-ticketnet
/ip/firewall/nat add chain=srcnat src-address=172.31.255.0/30 action=masquerade comment="ticketnet: agent egress"
# A dedicated API user limited to the container's address.
/user/group add name=ticketnet policy=read,write,api,policy,test,sensitive,ftp
# Its password is drawn by the router and goes straight into the container's environment: nobody types
# or copies it (one block, since a :local lives as long as its block).
{ :local pw [:rndstr length=32 from="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"]; /user add name=ticketnet group=ticketnet address=172.31.255.2/32 password=$pw; /container/envs add name=ticketnet key=TICKETNET_ROUTER_PASSWORD value=$pw }
/container/mounts add name=ticketnet-state src=/usb1/ticketnet dst=/var/lib/ticketnet-agent
/container/envs add name=ticketnet key=TICKETNET_ROUTER_HOST value=172.31.255.1
/container/envs add name=ticketnet key=TICKETNET_ROUTER_USER value=ticketnet
/container/envs add name=ticketnet key=TICKETNET_CONTROLLER_URL value=https://controller.example.com
/container/envs add name=ticketnet key=TICKETNET_ENROL_CODE value=XXXX-XXXX-XXXX
/container add file=usb1/ticketnet-agent.tar interface=veth-ticketnet envlist=ticketnet mounts=ticketnet-state root-dir=usb1/ticketnet-root logging=yes start-on-boot=yes
/container start [find interface=veth-ticketnet]
