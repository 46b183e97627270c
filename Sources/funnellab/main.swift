import FunnelLabCLI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

exit(FunnelLabCommandLine.run(Array(CommandLine.arguments.dropFirst())))
