print("funnellab")
