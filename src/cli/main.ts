console.log("effect-a2a: under construction")
