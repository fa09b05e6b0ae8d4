"""Generate a synthetic leaf/spine RoCE fabric of Arista EOS running-configs for the benchmark.

Each switch gets an AVD-style running-config of 36-40 KB (1100-1200 lines): the interface, QoS,
PFC and ACL lines fablint models, and the rest that it skips (BGP, EVPN, route-maps, management,
about 30 % of the lines), so that the parser sees the same mix of work as on a real fabric. A
few faults are planted at a fixed rate with a seeded RNG, so the output, and the findings, are the
same on every run; they are listed in ``MANIFEST.tsv`` (a name fablint skips) next to the configs.

Topology: pods of up to 64 switches, one spine per eight switches. A leaf has 48 GPU ports, two
two-member port-channels to storage, four spare ports and one uplink to every spine of its pod.

    python bench/gen_eos.py --switches 256 --out bench/out/eos-256 [--seed 7]
"""

from __future__ import annotations

import argparse
import ipaddress
import random
import string
from dataclasses import dataclass, field
from pathlib import Path

POD_SIZE = 64
PORTS = 64
GPU_PORTS = 48
STORAGE_LAGS = ((49, (49, 50)), (51, (51, 52)))  # (port-channel id, member ports)
SPARE_PORTS = range(53, 57)
UPLINK_BASE = 57  # leaf uplink to spine j is Ethernet(57 + j)/1
FAULT_RATE = 0.01
"""Share of fabric ports with a planted port fault."""
SWITCH_FAULT_RATE = 0.01
"""Share of switches with a planted device-wide fault (ACL or ECN thresholds)."""

PORT_FAULTS = {
    "no-mtu": "MTU001",
    "flowcontrol-receive": "PFC003",
    "no-service-profile": "PFC001,ECN001",
}
EOS_VERSIONS = ("4.32.2F", "4.32.2F", "4.32.2F", "4.31.3M", "4.30.6M")
HASH_CHARS = string.ascii_letters + string.digits + "./"
B64_CHARS = string.ascii_letters + string.digits + "+/"
TENANTS = ("TRAINING", "INFERENCE", "STORAGE", "SERVICES")
VLANS_PER_VRF = 3
USERS = (("admin", "network-admin"), ("cvpadmin", "network-admin"), ("ansible", "network-admin"),
         ("netbox", "network-operator"), ("noc", "network-operator"), ("oncall", "network-admin"))


@dataclass(frozen=True)
class Switch:
    """One switch of the fabric and where it sits."""

    name: str
    role: str  # "leaf" or "spine"
    number: int  # 1-based among switches of its role
    pod: int
    local: int  # 0-based index among switches of its role in its pod
    pod_spines: int
    pod_leaves: int
    first_leaf: int  # number of the first leaf of the pod
    first_spine: int

    @property
    def asn(self) -> int:
        return 65000 + self.pod if self.role == "spine" else 4_200_000_000 + self.number

    @property
    def router_id(self) -> str:
        offset = self.number if self.role == "leaf" else 16_384 + self.number
        return str(ipaddress.IPv4Address("10.255.0.0") + offset)


@dataclass
class Config:
    """Lines of one running-config and the faults planted in it."""

    switch: Switch
    rng: random.Random
    lines: list[str] = field(default_factory=list)
    faults: list[tuple[str, str, str]] = field(default_factory=list)  # object, fault, rule
    acl_drops_roce: bool = False

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def block(self, head: str, *body: str) -> None:
        """A top-level block with a three-space indented body, closed by ``!``."""
        self.lines.append(head)
        self.lines.extend(f"   {line}" for line in body)
        self.lines.append("!")

    def fault(self, obj: str, kind: str, rule: str) -> None:
        self.faults.append((obj, kind, rule))


def topology(count: int) -> list[Switch]:
    """Switches in pods of up to POD_SIZE, one spine per eight switches of a pod."""
    switches: list[Switch] = []
    leaves = spines = 0
    for pod, start in enumerate(range(0, count, POD_SIZE), 1):
        size = min(POD_SIZE, count - start)
        pod_spines = max(1, round(size / 8))
        pod_leaves = size - pod_spines
        first_leaf, first_spine = leaves + 1, spines + 1
        for j in range(pod_spines):
            spines += 1
            switches.append(Switch(f"spine{spines}", "spine", spines, pod, j, pod_spines,
                                   pod_leaves, first_leaf, first_spine))
        for i in range(pod_leaves):
            leaves += 1
            switches.append(Switch(f"leaf{leaves}", "leaf", leaves, pod, i, pod_spines,
                                   pod_leaves, first_leaf, first_spine))
    return switches


def p2p(pod: int, spine_local: int, leaf_local: int, side: str) -> tuple[str, str]:
    """One side ("spine" or "leaf") of a spine-leaf link: its IPv4 /31 and IPv6 /127."""
    link = ((pod - 1) * 8 + spine_local) * POD_SIZE + leaf_local
    end = 0 if side == "spine" else 1
    v4 = ipaddress.IPv4Address("10.0.0.0") + 2 * link + end
    v6 = ipaddress.IPv6Address("2001:db8:100::") + 2 * link + end
    return f"{v4}/31", f"{v6}/127"


def host_link(leaf: int, port: int) -> str:
    """The switch side of the /31 towards a GPU NIC."""
    return f"{ipaddress.IPv4Address('100.64.0.0') + 2 * ((leaf - 1) * PORTS + port)}/31"


def vlans() -> list[tuple[int, str, int, int]]:
    """(tenant index, tenant, index in tenant, VLAN id) of every tenant VLAN of a leaf."""
    return [(t, tenant, v, 100 * (t + 1) + 10 + v)
            for t, tenant in enumerate(TENANTS) for v in range(VLANS_PER_VRF)]


def secret(rng: random.Random) -> str:
    salt = "".join(rng.choices(HASH_CHARS, k=16))
    return f"$6${salt}${''.join(rng.choices(HASH_CHARS, k=86))}"


def ssh_key(rng: random.Random) -> str:
    return "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAACAQ" + "".join(rng.choices(B64_CHARS, k=680))


def password7(rng: random.Random) -> str:
    return "".join(rng.choices(B64_CHARS, k=22)) + "=="


def header(cfg: Config) -> None:
    sw, rng = cfg.switch, cfg.rng
    version = rng.choice(EOS_VERSIONS)
    cfg.add(
        "! Command: show running-config",
        f"! device: {sw.name} (DCS-7060DX5-64S, EOS-{version})",
        "!",
        f"! boot system flash:/EOS-{version}.swi",
        "!",
        "no aaa root",
        "aaa authorization exec default local",
        "aaa authorization commands all default local",
        "aaa authentication login default group TACACS local",
        "aaa accounting commands all default start-stop group TACACS logging",
        "aaa group server tacacs+ TACACS",
        "   server 10.10.0.49 vrf MGMT",
        "   server 10.10.1.49 vrf MGMT",
        "!",
        f"tacacs-server host 10.10.0.49 vrf MGMT key 7 {password7(rng)}",
        f"tacacs-server host 10.10.1.49 vrf MGMT key 7 {password7(rng)}",
        "!",
    )
    for user, role in USERS:
        cfg.add(f"username {user} privilege 15 role {role} secret sha512 {secret(rng)}",
                f"username {user} ssh-key {ssh_key(rng)} {user}@bastion.example.net")
    cfg.add("!")
    cfg.block(
        "daemon TerminAttr",
        "exec /usr/bin/TerminAttr -cvaddr=apiserver.cv.example.net:443 "
        "-cvauth=token-secure,/tmp/cv-onboarding-token -cvvrf=MGMT "
        "-smashexcludes=ale,flexCounter,hardware,kni,pulse,strata "
        "-ingestexclude=/Sysdb/cell/1/agent,/Sysdb/cell/2/agent -taillogs",
        "no shutdown",
    )
    cfg.add(
        "vlan internal order ascending range 1006 1199",
        "!",
        "transceiver qsfp default-mode 4x10G",
        "!",
        "service routing protocols model multi-agent",
        "!",
        "logging buffered 10000 informational",
        "logging vrf MGMT host 10.10.0.21",
        "logging vrf MGMT host 10.10.0.22",
        "logging vrf MGMT source-interface Management1",
        "!",
        f"hostname {sw.name}",
        "ip name-server vrf MGMT 10.10.0.53",
        "ip name-server vrf MGMT 10.10.1.53",
        "dns domain fabric.example.net",
        "!",
        "ntp local-interface vrf MGMT Management1",
        "ntp server vrf MGMT 10.10.0.123 prefer iburst",
        "ntp server vrf MGMT 10.10.1.123 iburst",
        "!",
        "snmp-server contact noc@example.net",
        f"snmp-server location GPU-DC1 POD{sw.pod} {sw.name.upper()}",
        "snmp-server vrf MGMT local-interface Management1",
        "snmp-server host 10.10.0.161 vrf MGMT version 2c COMMUNITY-RO",
        "!",
        "spanning-tree mode none",
        "!",
        "clock timezone UTC",
        "!",
    )


def vlans_and_vrfs(cfg: Config) -> None:
    if cfg.switch.role == "leaf":
        for _t, tenant, v, vlan in vlans():
            cfg.block(f"vlan {vlan}", f"name {tenant}_SEGMENT_{v + 1}")
        cfg.block("vlan 4094", "name MLAG_PEER", "trunk group MLAG")
    cfg.add("vrf instance MGMT", "!")
    if cfg.switch.role == "leaf":
        for tenant in TENANTS:
            cfg.add(f"vrf instance {tenant}", "!")


def management(cfg: Config) -> None:
    cfg.block(
        "management api http-commands",
        "protocol https",
        "no shutdown",
        "!",
        "vrf MGMT",
        "   no shutdown",
    )
    cfg.block(
        "management api gnmi",
        "transport grpc default",
        "   vrf MGMT",
        "provider eos-native",
    )
    cfg.block("management console", "idle-timeout 30")
    cfg.block(
        "management ssh",
        "ip access-group MGMT-SSH vrf MGMT in",
        "idle-timeout 60",
        "authentication protocol keyboard-interactive password public-key",
        "vrf MGMT",
        "   no shutdown",
    )
    cfg.block("queue-monitor length", "log 5")


def qos(cfg: Config) -> None:
    """Global maps, the PFC watchdog defaults and the ROCE_LOSSLESS profile."""
    cfg.add(
        "qos map dscp 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 to traffic-class 0",
        "qos map dscp 16 18 20 22 to traffic-class 1",
        "qos map dscp 24 26 to traffic-class 3",
        "qos map dscp 32 34 36 38 to traffic-class 4",
        "qos map dscp 46 to traffic-class 5",
        "qos map dscp 48 to traffic-class 6",
        "qos map dscp 56 to traffic-class 7",
        "qos map traffic-class 3 to tx-queue 3",
        "qos map traffic-class 6 to tx-queue 6",
        "!",
        "priority-flow-control pause watchdog default timeout 0.05",
        "priority-flow-control pause watchdog default polling-interval 0.01",
        "priority-flow-control pause watchdog default recovery-time 1",
        "priority-flow-control pause watchdog action drop",
        "!",
    )
    ecn_min, ecn_max = 150, 1500
    if cfg.rng.random() < SWITCH_FAULT_RATE / 2:
        ecn_min, ecn_max = ecn_max, ecn_min
        cfg.fault("qos profile ROCE_LOSSLESS", "ecn-thresholds-swapped", "ECN003")
    cfg.block(
        "qos profile ROCE_LOSSLESS",
        "qos trust dscp",
        "priority-flow-control on",
        "priority-flow-control priority 3 no-drop",
        "priority-flow-control pause watchdog",
        "!",
        "tx-queue 0",
        "   bandwidth percent 20",
        "!",
        "tx-queue 3",
        "   bandwidth percent 60",
        f"   random-detect ecn minimum-threshold {ecn_min} kbytes maximum-threshold "
        f"{ecn_max} kbytes max-mark-probability 100",
        "!",
        "tx-queue 4",
        "   bandwidth percent 10",
        "!",
        "tx-queue 6",
        "   priority strict",
    )


def acls(cfg: Config) -> None:
    """Host protection (applied on a few GPU ports), fabric and management lists."""
    if cfg.switch.role == "leaf":
        entries = [
            "10 remark RoCEv2 and CNP first",
            "20 permit udp any any eq 4791",
            "30 permit icmp any any",
            "40 deny tcp any any eq ssh telnet",
            "50 deny tcp any any eq bgp",
            "60 deny udp any any eq snmp snmptrap",
            "70 deny udp any any range 33434 33534",
            "80 permit tcp any any established",
            "90 permit tcp any any range 1024 65535",
            "100 permit udp any any range 1024 65535",
            "110 deny ip any any log",
        ]
        if cfg.rng.random() < SWITCH_FAULT_RATE / 2:
            # Someone "tidied up" the list: RoCE now meets the final deny.
            entries = [e for e in entries if "4791" not in e and "udp any any range 1024" not in e]
            cfg.acl_drops_roce = True  # a fault on every port it is applied to
        cfg.block("ip access-list HOST-PROTECT", *entries)
        tenant = [f"{10 * (i + 1)} {entry}" for i, entry in enumerate((
            "remark Tenant segments: storage and services reach, nothing else",
            "permit tcp 172.16.0.0/12 172.18.0.0/16 eq 2049 111 20048",
            "permit udp 172.16.0.0/12 172.18.0.0/16 eq 2049 111 20048",
            "permit tcp 172.16.0.0/12 172.18.0.0/16 range 3260 3261",
            "permit tcp 172.16.0.0/12 172.19.0.0/16 eq https www 8443",
            "permit tcp 172.16.0.0/12 172.19.0.0/16 range 6817 6819",
            "permit udp 172.16.0.0/12 172.19.0.0/16 eq domain ntp",
            "permit tcp 172.16.0.0/12 host 10.10.0.80 eq 3128",
            "permit tcp 172.16.0.0/12 host 10.10.0.90 range 9090 9100",
            "permit udp 172.16.0.0/12 host 10.10.0.95 eq syslog",
            "permit icmp 172.16.0.0/12 any",
            "deny tcp 172.16.0.0/12 10.0.0.0/8 log",
            "deny udp 172.16.0.0/12 10.0.0.0/8 log",
            "permit tcp 172.16.0.0/12 any established",
            "deny ip 172.16.0.0/12 192.168.0.0/16 log",
            "permit ip 172.16.0.0/12 172.16.0.0/12",
            "deny ip any any log",
        ))]
        cfg.block("ip access-list TENANT-INBOUND", *tenant)
    cfg.block(
        "ip access-list FABRIC-PROTECT",
        "10 permit udp any any eq 4791",
        "20 permit tcp 10.0.0.0/16 10.0.0.0/16 eq bgp",
        "30 permit tcp 10.0.0.0/16 eq bgp 10.0.0.0/16",
        "40 permit udp 10.0.0.0/16 any eq bfd bfd-echo",
        "50 permit icmp any any",
        "60 deny tcp any any eq ssh telnet",
        "70 permit ip any any",
    )
    control_plane = [
        "10 permit icmp any any",
        "20 permit ip any any tracked",
        "30 permit udp any any eq bfd ttl eq 255",
        "40 permit udp any any eq bfd-echo ttl eq 254",
        "50 permit udp any any eq 4784 6784 7784",
        "60 permit udp any eq 7784 any range 49152 65535",
        "70 permit ospf any any",
        "80 permit tcp 10.0.0.0/16 any eq ssh telnet www snmp bgp https msdp ldp netconf-ssh gnmi",
        "90 permit udp 10.0.0.0/16 any eq bootps bootpc snmp rip ntp ldp ptp-event ptp-general",
        "100 permit tcp 10.255.0.0/16 any eq mlag ttl eq 255",
        "110 permit udp 10.255.0.0/16 any eq mlag ttl eq 255",
        "120 permit vrrp any any",
        "130 permit ahp any any",
        "140 permit pim any any",
        "150 permit igmp any any",
        "160 permit tcp 10.10.0.0/16 any range 5900 5910",
        "170 permit tcp 10.10.0.0/16 any range 50000 50100",
        "180 permit udp 10.10.0.0/16 any range 51000 51100",
        "190 permit tcp 10.10.0.0/16 any eq 3333",
        "200 permit tcp 10.10.0.0/16 any eq 830 ttl eq 255",
        "210 permit tcp any any eq bgp",
        "220 permit tcp any eq bgp any",
        "230 permit udp any any eq 4791",
        "240 permit udp 192.168.0.0/16 any eq ntp",
        "250 permit tcp 192.168.0.0/16 any eq ssh https 6030 9340",
        "260 permit udp 192.168.0.0/16 any eq snmp",
        "270 deny tcp any any eq telnet log",
        "280 deny udp any any eq tftp log",
        "290 permit tcp any any established",
        "300 deny ip any any log",
    ]
    cfg.block("ip access-list CONTROL-PLANE-PROTECT", *control_plane)
    cfg.block("system control-plane", "ip access-group CONTROL-PLANE-PROTECT in",
              "ip access-group CONTROL-PLANE-PROTECT vrf MGMT in")
    cfg.block(
        "ip access-list MGMT-SSH",
        "10 permit tcp 10.10.0.0/16 any eq ssh",
        "20 permit tcp 192.168.0.0/16 any eq ssh",
        "30 deny ip any any log",
    )


def ethernet(cfg: Config, port: int, description: str, address: str | None,
             *, acl: str | None = None, member_of: int | None = None,
             v6: str | None = None) -> None:
    """One 400G port; routed with RoCE QoS, or a port-channel member. May get a fault."""
    name = f"Ethernet{port}/1"
    fault = None
    if cfg.rng.random() < FAULT_RATE:
        fault = cfg.rng.choice(sorted(PORT_FAULTS))
        if member_of is not None and fault == "no-mtu":
            fault = "flowcontrol-receive"  # MTU lives on the port-channel
        cfg.fault(name, fault, PORT_FAULTS[fault])
    if acl == "HOST-PROTECT" and cfg.acl_drops_roce:
        cfg.fault(name, "acl-drops-roce", "ACL001")
    body = [f"description {description}", "no shutdown"]
    if member_of is None and fault != "no-mtu":
        body.append("mtu 9214")
    body.append("speed 400g-8")
    if fault == "flowcontrol-receive":
        body.append("flowcontrol receive on")
    if member_of is not None:
        body.append(f"channel-group {member_of} mode active")
    else:
        body += ["no switchport", f"ip address {address}"]
        if acl:
            body.append(f"ip access-group {acl} in")
        if v6 is not None:
            body += ["ipv6 enable", f"ipv6 address {v6}"]
        if v6 is not None:
            body.append("bfd interval 100 min-rx 100 multiplier 3")
    if fault != "no-service-profile":
        body.append("service-profile ROCE_LOSSLESS")
    cfg.block(f"interface {name}", *body)


def spare(cfg: Config, port: int) -> None:
    cfg.block(f"interface Ethernet{port}/1", "description UNUSED", "shutdown", "speed 400g-8")


def leaf_interfaces(cfg: Config) -> None:
    sw, rng = cfg.switch, cfg.rng
    for lag, _members in STORAGE_LAGS:
        cfg.block(
            f"interface Port-Channel{lag}",
            f"description STORAGE_stor{sw.number:04d}-{lag}_bond0",
            "no shutdown",
            "mtu 9214",
            "no switchport",
            f"ip address {host_link(sw.number, lag)}",
            "port-channel lacp fallback timeout 5",
        )
    protected = set(rng.sample(range(1, GPU_PORTS + 1), 3))
    for port in range(1, PORTS + 1):
        if port <= GPU_PORTS:
            gpu = (sw.number - 1) * GPU_PORTS // 8 + (port - 1) // 8 + 1
            ethernet(cfg, port, f"SERVER_dgx-h100-pod{sw.pod}-{gpu:05d}_mlx5_{(port - 1) % 8}"
                     f"_RAIL{(port - 1) % 8 + 1}_400G",
                     host_link(sw.number, port), acl="HOST-PROTECT" if port in protected else None)
        elif any(port in members for _lag, members in STORAGE_LAGS):
            lag = next(lag for lag, members in STORAGE_LAGS if port in members)
            ethernet(cfg, port, f"STORAGE_stor{sw.number:04d}-{lag}_eth{port - lag}", None,
                     member_of=lag)
        elif port in SPARE_PORTS or port - UPLINK_BASE >= sw.pod_spines:
            spare(cfg, port)
        else:
            j = port - UPLINK_BASE
            spine = sw.first_spine + j
            v4, v6 = p2p(sw.pod, j, sw.local, "leaf")
            ethernet(cfg, port, f"P2P_LINK_TO_SPINE{spine}_Ethernet{sw.local + 1}/1", v4, v6=v6,
                     acl="FABRIC-PROTECT" if j == 0 and sw.number % 16 == 0 else None)


def spine_interfaces(cfg: Config) -> None:
    sw = cfg.switch
    for port in range(1, PORTS + 1):
        i = port - 1
        if i < sw.pod_leaves:
            v4, v6 = p2p(sw.pod, sw.local, i, "spine")
            ethernet(cfg, port,
                     f"P2P_LINK_TO_LEAF{sw.first_leaf + i}_Ethernet{UPLINK_BASE + sw.local}/1",
                     v4, v6=v6)
        else:
            spare(cfg, port)


def logical_interfaces(cfg: Config) -> None:
    sw = cfg.switch
    cfg.block("interface Loopback0", "description ROUTER_ID", "no shutdown",
              f"ip address {sw.router_id}/32")
    mgmt = ipaddress.IPv4Address("192.168.0.10") + sw.number + (2048 if sw.role == "spine" else 0)
    cfg.block("interface Management1", "description OOB_MANAGEMENT", "no shutdown", "vrf MGMT",
              f"ip address {mgmt}/16")
    if sw.role != "leaf":
        return
    for t, tenant, v, vlan in vlans():
        cfg.block(
            f"interface Vlan{vlan}",
            f"description {tenant}_SEGMENT_{v + 1}",
            "no shutdown",
            "mtu 9214",
            f"vrf {tenant}",
            f"ip address virtual 172.{16 + t}.{v * 16 + sw.number % 16}.1/24",
            "ip helper-address 10.10.0.67 vrf MGMT source-interface Loopback0",
            "ip helper-address 10.10.1.67 vrf MGMT source-interface Loopback0",
            "ip access-group TENANT-INBOUND in",
        )
    cfg.block("interface Vxlan1", f"description {sw.name}_VTEP",
              "vxlan source-interface Loopback0", "vxlan udp-port 4789",
              *(f"vxlan vrf {tenant} vni {50000 + t}" for t, tenant in enumerate(TENANTS)))


def routing(cfg: Config) -> None:
    sw = cfg.switch
    cfg.add("ip virtual-router mac-address 00:1c:73:00:dc:01", "!", "ip routing",
            "no ip routing vrf MGMT")
    if sw.role == "leaf":
        cfg.add(*(f"ip routing vrf {tenant}" for tenant in TENANTS))
    cfg.add(
        "!",
        "ip prefix-list PL-LOOPBACKS-EVPN-OVERLAY",
        "   seq 10 permit 10.255.0.0/16 eq 32",
        "!",
        "ip prefix-list PL-P2P-UNDERLAY",
        "   seq 10 permit 10.0.0.0/16 le 31",
        "!",
        "ip prefix-list PL-GPU-HOSTS",
        "   seq 10 permit 100.64.0.0/10 le 31",
        "!",
        "ip route vrf MGMT 0.0.0.0/0 192.168.0.1",
        "!",
    )
    cfg.block("route-map RM-CONN-2-BGP permit 10", "match ip address prefix-list "
              "PL-LOOPBACKS-EVPN-OVERLAY")
    cfg.block("route-map RM-CONN-2-BGP permit 20", "match ip address prefix-list PL-GPU-HOSTS",
              "set community 65000:100 additive")
    cfg.block("route-map RM-CONN-2-BGP permit 30", "match ip address prefix-list PL-P2P-UNDERLAY",
              "set community 65000:200 additive")
    cfg.block("route-map RM-BGP-UNDERLAY-IN permit 10", "set local-preference 200")
    cfg.block("router bfd", "multihop interval 300 min-rx 300 multiplier 3")


def bgp(cfg: Config) -> None:
    """A large router bgp section: nothing in it is modelled by fablint."""
    sw = cfg.switch
    body = [
        f"router-id {sw.router_id}",
        "no bgp default ipv4-unicast",
        "update wait-install",
        "distance bgp 20 200 200",
        "graceful-restart restart-time 300",
        "graceful-restart",
        "maximum-paths 64 ecmp 64",
        "neighbor EVPN-OVERLAY-PEERS peer group",
        "neighbor EVPN-OVERLAY-PEERS update-source Loopback0",
        "neighbor EVPN-OVERLAY-PEERS bfd",
        "neighbor EVPN-OVERLAY-PEERS ebgp-multihop 3",
        f"neighbor EVPN-OVERLAY-PEERS password 7 {password7(cfg.rng)}",
        "neighbor EVPN-OVERLAY-PEERS send-community",
        "neighbor EVPN-OVERLAY-PEERS maximum-routes 0",
        "neighbor IPv4-UNDERLAY-PEERS peer group",
        f"neighbor IPv4-UNDERLAY-PEERS password 7 {password7(cfg.rng)}",
        "neighbor IPv4-UNDERLAY-PEERS send-community",
        "neighbor IPv4-UNDERLAY-PEERS maximum-routes 12000",
        "neighbor IPv4-UNDERLAY-PEERS route-map RM-BGP-UNDERLAY-IN in",
    ]
    if sw.role == "leaf":
        peers = [(p2p(sw.pod, j, sw.local, "spine")[0].split("/")[0], 65000 + sw.pod,
                  f"P2P_LINK_TO_SPINE{sw.first_spine + j}_Ethernet{sw.local + 1}/1")
                 for j in range(sw.pod_spines)]
    else:
        peers = [(p2p(sw.pod, sw.local, i, "leaf")[0].split("/")[0],
                  4_200_000_000 + sw.first_leaf + i,
                  f"P2P_LINK_TO_LEAF{sw.first_leaf + i}_Ethernet{UPLINK_BASE + sw.local}/1")
                 for i in range(sw.pod_leaves)]
    for address, asn, description in peers:
        body += [
            f"neighbor {address} peer group IPv4-UNDERLAY-PEERS",
            f"neighbor {address} remote-as {asn}",
            f"neighbor {address} description {description}",
        ]
    if sw.role == "leaf":
        for j in range(sw.pod_spines):
            spine_id = ipaddress.IPv4Address("10.255.0.0") + 16_384 + sw.first_spine + j
            body += [
                f"neighbor {spine_id} peer group EVPN-OVERLAY-PEERS",
                f"neighbor {spine_id} remote-as {65000 + sw.pod}",
                f"neighbor {spine_id} description spine{sw.first_spine + j}_Loopback0",
            ]
    body += [
        "redistribute connected route-map RM-CONN-2-BGP",
        "!",
        "address-family evpn",
        "   neighbor EVPN-OVERLAY-PEERS activate",
        "!",
        "address-family ipv4",
        "   no neighbor EVPN-OVERLAY-PEERS activate",
        "   neighbor IPv4-UNDERLAY-PEERS activate",
    ]
    if sw.role == "leaf":
        rd_base = sw.router_id
        for _t, _tenant, _v, vlan in vlans():
            body += [
                "!",
                f"vlan {vlan}",
                f"   rd {rd_base}:{10000 + vlan}",
                f"   route-target both {10000 + vlan}:{10000 + vlan}",
                "   redistribute learned",
            ]
        for t, tenant in enumerate(TENANTS):
            body += [
                "!",
                f"vrf {tenant}",
                f"   rd {rd_base}:{50000 + t}",
                f"   route-target import evpn {50000 + t}:{50000 + t}",
                f"   route-target export evpn {50000 + t}:{50000 + t}",
                f"   router-id {rd_base}",
                "   redistribute connected",
            ]
    cfg.block(f"router bgp {sw.asn}", *body)


def render(sw: Switch, seed: int) -> Config:
    """The full running-config of one switch, in running-config section order."""
    cfg = Config(sw, random.Random(f"{seed}/{sw.name}"))
    header(cfg)
    vlans_and_vrfs(cfg)
    management(cfg)
    qos(cfg)
    acls(cfg)
    if sw.role == "leaf":
        leaf_interfaces(cfg)
    else:
        spine_interfaces(cfg)
    logical_interfaces(cfg)
    routing(cfg)
    bgp(cfg)
    cfg.add("end")
    return cfg


def generate(count: int, out: Path, seed: int) -> list[tuple[str, str, str, str]]:
    """Write ``count`` configs to ``out``; return the planted faults (file, object, fault, rule)."""
    out.mkdir(parents=True, exist_ok=True)
    manifest: list[tuple[str, str, str, str]] = []
    for sw in topology(count):
        cfg = render(sw, seed)
        file = f"{sw.name}.cfg"
        (out / file).write_text("\n".join(cfg.lines) + "\n", encoding="utf-8")
        manifest += [(file, *fault) for fault in cfg.faults]
    rows = ["file\tobject\tfault\trule", *("\t".join(row) for row in manifest)]
    (out / "MANIFEST.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--switches", type=int, required=True, help="number of switches")
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument("--seed", type=int, default=1, help="RNG seed (default 1)")
    args = parser.parse_args()
    if args.switches < 1:
        parser.error("--switches must be at least 1")
    faults = generate(args.switches, args.out, args.seed)
    print(f"wrote {args.switches} configs to {args.out} with {len(faults)} planted faults "
          f"(see {args.out / 'MANIFEST.tsv'})")


if __name__ == "__main__":
    main()
