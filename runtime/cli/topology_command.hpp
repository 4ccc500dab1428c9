#pragma once
// `kernbench topology scale --sips S --cubes C --pes P [--out FILE]`: writes
// a whole scale-out topology (the machines of config/scale/): S SIPs in a
// ring of inter-SIP links between their cube0 NOCs, C cubes per SIP in a 2-D
// mesh of UCIe links between their NOCs, P PEs per cube, each cube the one
// of config/scale/4sip_4cube_64pe.yaml (DESIGN §4 timing).

#include <CLI/App.hpp>

namespace kb {

CLI::App* add_topology_command(CLI::App& app, int& exit_code);

} // namespace kb
