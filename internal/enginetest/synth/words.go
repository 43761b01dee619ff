package synth

// commonWords are frequent English words, roughly in order of frequency;
// text draws from them with a Zipf distribution, so the first ones are the
// most common (stop words included, as in real turns).
var commonWords = []string{
	"the", "to", "and", "a", "i", "you", "it", "of", "that", "is", "in", "we", "for", "this", "on",
	"be", "with", "have", "do", "not", "so", "can", "but", "was", "are", "just", "at", "if", "my",
	"what", "about", "will", "your", "me", "they", "all", "there", "from", "one", "like", "would",
	"know", "think", "get", "when", "out", "up", "how", "some", "time", "our", "need", "then", "more",
	"also", "should", "could", "really", "good", "make", "want", "now", "see", "yes", "which", "new",
	"go", "an", "did", "been", "or", "work", "by", "them", "any", "last", "still", "day", "sure",
	"thanks", "look", "going", "next", "week", "first", "back", "right", "use", "take", "much", "help",
	"because", "other", "here", "check", "only", "find", "same", "plan", "try", "before", "after",
	"again", "something", "well", "way", "maybe", "thing", "said", "people", "file", "change", "data",
	"report", "team", "meeting", "today", "tomorrow", "yesterday", "morning", "evening", "weekend",
	"order", "price", "budget", "cost", "payment", "invoice", "refund", "account", "customer", "email",
	"message", "call", "phone", "address", "number", "date", "list", "note", "question", "answer",
	"problem", "issue", "error", "bug", "fix", "test", "build", "deploy", "release", "version",
	"server", "database", "query", "index", "search", "result", "page", "link", "document", "draft",
	"review", "comment", "feedback", "idea", "option", "decision", "reason", "example", "detail",
	"summary", "update", "status", "progress", "schedule", "deadline", "task", "project", "goal",
	"trip", "flight", "hotel", "train", "ticket", "booking", "dinner", "lunch", "coffee", "recipe",
	"garden", "plant", "tomato", "weather", "rain", "sun", "snow", "park", "walk", "run", "bike",
	"car", "house", "kitchen", "room", "family", "friend", "brother", "sister", "mother", "father",
	"kid", "dog", "cat", "book", "movie", "music", "song", "game", "class", "course", "exam",
	"school", "job", "interview", "office", "manager", "client", "contract", "policy", "rule",
	"health", "doctor", "appointment", "gym", "exercise", "sleep", "diet", "vacation", "holiday",
	"birthday", "gift", "party", "event", "concert", "museum", "city", "country", "beach", "mountain",
	"lake", "river", "island", "map", "route", "distance", "hour", "minute", "month", "year",
	"quick", "slow", "easy", "hard", "big", "small", "long", "short", "early", "late", "cheap",
	"expensive", "happy", "tired", "busy", "free", "ready", "important", "different", "possible",
	"probably", "actually", "already", "almost", "usually", "always", "never", "often", "sometimes",
	"send", "share", "write", "read", "open", "close", "start", "stop", "finish", "move", "keep",
	"remember", "forget", "ask", "tell", "explain", "agree", "decide", "choose", "buy", "sell",
	"pay", "save", "spend", "cook", "bake", "clean", "paint", "fix", "drive", "visit", "travel",
	"learn", "teach", "practice", "improve", "measure", "compare", "estimate", "schedule", "cancel",
	"confirm", "approve", "reject", "migrate", "upgrade", "install", "configure", "monitor", "backup",
	"restore", "export", "import", "sync", "merge", "split", "filter", "sort", "count", "limit",
	"spreadsheet", "dashboard", "pipeline", "cluster", "latency", "throughput", "memory", "storage",
	"network", "security", "password", "login", "permission", "token", "certificate", "domain",
	"vegetable", "salad", "pasta", "bread", "cheese", "wine", "chocolate", "strawberry", "banana",
	"guitar", "piano", "violin", "painting", "photography", "hiking", "climbing", "swimming",
	"yoga", "marathon", "tennis", "soccer", "chess", "puzzle", "novel", "poem", "history", "science",
}

// firstNames, projectWords and placeNames make per-resource topic words:
// every resource has its own few people, projects and places, so that
// queries about one user's history have selective terms.
var firstNames = []string{
	"Alice", "Bruno", "Chen", "Dana", "Elif", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kavya",
	"Liam", "Maya", "Nikolai", "Olu", "Priya", "Quinn", "Rosa", "Sven", "Tomas", "Uma", "Viktor",
	"Wen", "Ximena", "Yusuf", "Zofia", "Amara", "Boris", "Carmen", "Dmitri", "Emeka", "Freya",
}

var projectWords = []string{
	"Apollo", "Beacon", "Cascade", "Delta", "Ember", "Falcon", "Granite", "Harbor", "Iris", "Juniper",
	"Kestrel", "Lantern", "Meridian", "Nimbus", "Orchid", "Pioneer", "Quartz", "Raven", "Sierra",
	"Tundra", "Umbra", "Vertex", "Willow", "Zenith", "Atlas", "Bramble", "Comet", "Dune", "Echo",
}

var placeNames = []string{
	"Lisbon", "Kyoto", "Nairobi", "Oslo", "Lima", "Hanoi", "Porto", "Tbilisi", "Quebec", "Seville",
	"Krakow", "Valparaiso", "Marrakesh", "Reykjavik", "Busan", "Tallinn", "Cusco", "Bergen", "Lyon",
	"Dubrovnik", "Salzburg", "Mombasa", "Chiang", "Zanzibar", "Galway", "Bruges", "Hobart", "Malaga",
}

// toolNames are the tools of the synthetic agent.
var toolNames = []string{
	"search_orders", "lookup_invoice", "get_weather", "read_file", "run_query", "create_ticket",
	"list_events", "send_email", "get_recipe", "check_flight",
}
